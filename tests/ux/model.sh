#!/usr/bin/env bash
# model.sh — `arbench model` for a new user (issue 42, item 6): with fewer than 2 GPUs one line pointing at --xml
# and the shipped example boxes (exit 2); docs/model.md's inline --calib '{"params":...}' works as a file does; the
# crossover line never says "from never".
source "$(dirname "$0")/../lib/common.sh"
ar_counting
M="$ARBENCH_SRC/tests/fixtures/model"
hint="the model needs 2 or more: give the box to model with --xml FILE (lstopo --of xml there, or an NCCL topology dump), e.g. tests/fixtures/model/sw2-8g-gen5.xml (8 GPUs on two Gen5 switches) or ds-8g-gen5.xml (two sockets) of arbench's source tree"
one="$ARBENCH_SRC/tests/fixtures/topo/nccl-format.xml"
check_bad "one GPU in --xml" "arbench model: $one has 1 NVIDIA GPU; $hint" "$ARBENCH" model --xml "$one"
if "$ARBENCH" list --wide | qgrep -q '^GPUs visible: [01]\b'; then
  check_bad "this machine" "arbench model: this machine's topology has" "$ARBENCH" model
  grep -qF "; $hint" "$TMP/bad.err" && echo "ok: this machine: points at --xml" || check_fail "this machine: no pointer"
fi
for f in sw2-8g-gen5.xml ds-8g-gen5.xml; do [ -f "$M/$f" ] || check_fail "the example box $f is not where the hint says"; done
# docs/model.md: --calib '{"params":{"socket_gbs":N}}' inline, the same numbers as that file.
args=(--xml "$M/ds-8g-gen5.xml" -b 1M -e 1M --algo oneshot-push)
echo '{"params":{"socket_gbs":39}}' >"$TMP/c.json"
file=$("$ARBENCH" model "${args[@]}" --calib "$TMP/c.json" | grep '^1M')
inline=$("$ARBENCH" model "${args[@]}" --calib '{"params":{"socket_gbs":39}}' 2>"$TMP/err" | grep '^1M')
check_eq "inline --calib = the file" "$file" "$inline"
check_eq "socket_gbs 39 (one-shot push, 1M, two sockets)" "1M *438.0 (4.2)" "$(tr -s ' ' <<<"$inline")"
check_eq "default socket link: slower" "1M *1685.5 (1.1)" "$("$ARBENCH" model "${args[@]}" | grep '^1M' | tr -s ' ')"
check_bad "inline --calib not JSON" "--calib {\"params\":: not a JSON object" "$ARBENCH" model "${args[@]}" --calib '{"params":'
check_bad "inline --calib unknown knob" "nosuch" "$ARBENCH" model "${args[@]}" --calib '{"params":{"nosuch":1}}'
# crossovers: where NCCL never gets ahead the line says so, never "from never"
"$ARBENCH" model --xml "$M/sw2-8g-gen5.xml" -b 1K -e 4K >"$TMP/x"
check_eq "never ahead" "NCCL (its default choice) beats one-shot at no size up to 4K; it beats every custom algorithm at no size up to 4K" \
  "$(grep '^NCCL' "$TMP/x")"
check_eq "no 'from never'" 0 "$(grep -c 'from never' "$TMP/x")"
finish
