# lib.sh — helpers of the reliability tests; source it (sets TMP, fail, expect_status; CHECK_FILE).
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CHECK_FILE="$PY $HERE/check_file.py"
: "${APPENDER:?APPENDER must point at tests/reliability/appender}"
