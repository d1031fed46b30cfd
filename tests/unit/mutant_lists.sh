#!/usr/bin/env bash
# mutant_lists.sh — every planted bug of tests/mutants/*.tsv still applies (scripts/mutants.sh --check): ids
# unique, its file exists, its search text occurs exactly once there, every test it names exists.
source "$(dirname "$0")/../lib/common.sh"
expect_status 0 "${ARBENCH_SRC:?}/scripts/mutants.sh" --check "${ARBENCH_BUILD:?}"
cat "$TMP/out"
echo "all passed"
