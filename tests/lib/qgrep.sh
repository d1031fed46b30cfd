# qgrep.sh — qgrep, sourced by common.sh and by the scripts that source ranks.sh alone (a test's launcher).
# qgrep GREP-ARGS...: grep that reads its whole input. A `cmd | grep -q P` stops reading at the first match, so a
# cmd still writing (tar, ldd, nm, a long list) dies of SIGPIPE, and pipefail turns that 141 into a miss: a test that
# fails only when the box is loaded (CI's gpu-first_contact). Use `cmd | qgrep -q P` in these scripts.
qgrep() { local s=0; grep "$@" || s=$?; cat >/dev/null; return "$s"; }
