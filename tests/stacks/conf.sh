#!/usr/bin/env bash
# conf.sh — scripts/stacks.conf and scripts/stack.sh without the network: the stacks file is read field
# by field, bad lines, names and versions are one line with exit 2, and a wheel version pip's index
# lacks is named with the versions it has (pip faked by a stand-in python).
source "$(dirname "$0")/../lib/common.sh"
S=$ARBENCH_SRC/scripts/stack.sh
W=$ARBENCH_SRC/scripts/stack-wheels.sh
expect_status 0 "$S" --list
printf 'cu130 all\ncu128 unit,gpu,stacks,doctor\ncu130-nccl232 unit,gpu,stacks\n' >"$TMP/want"
diff "$TMP/want" "$TMP/out" || fail "stack.sh --list is not the stacks of scripts/stacks.conf"
expect_status 0 "$S" cu128 --dry-run
grep -qx "cu128 cuda=12.8.90 nccl=2.22.3 nvrtc=12.8.93 cuda_home=$ARBENCH_SRC/stacks/cu128 nccl_home=$ARBENCH_SRC/stacks/cu128" "$TMP/out" \
  || { cat "$TMP/out"; fail "cu128 does not resolve to its stacks.conf fields"; }
expect_status 0 "$S" cu130 --dry-run
grep -qx "cu130 cuda=/usr/local/cuda nccl=- nvrtc=- cuda_home=/usr/local/cuda nccl_home=/usr/local/cuda" "$TMP/out" \
  || { cat "$TMP/out"; fail "cu130 is not the toolkit prefix"; }
# flags override the file's fields; an ad-hoc stack with every version given needs no network
expect_status 0 "$S" cu128 --nccl 2.27.7 --dry-run
grep -q "^cu128 cuda=12.8.90 nccl=2.27.7 nvrtc=12.8.93 " "$TMP/out" || { cat "$TMP/out"; fail "--nccl does not override"; }
expect_status 0 "$S" mine --cuda 13.0.96 --nccl 2.28.9 --nvrtc 13.0.88 --dry-run
grep -q "^mine cuda=13.0.96 nccl=2.28.9 nvrtc=13.0.88 cuda_home=$ARBENCH_SRC/stacks/mine " "$TMP/out" \
  || { cat "$TMP/out"; fail "ad-hoc stack not resolved"; }
expect_one_line_error "unknown stack 'nope'" "$S" nope --dry-run
grep -q "cu130 cu128 cu130-nccl232" "$TMP/err" || fail "unknown stack does not list the known ones"
expect_one_line_error "bad --cuda '12.8.x'" "$S" x --cuda 12.8.x --nccl 2.27.7 --dry-run
expect_one_line_error "no wheel set for CUDA 11" "$S" x --cuda 11.8.89 --nccl 2.27.7 --dry-run
expect_one_line_error "needs --nccl VERSION" "$S" x --cuda 12.8.90 --nvrtc 12.8.93 --dry-run
expect_one_line_error "unknown option '--cudaa'" "$S" cu128 --cudaa 12.8.90
expect_one_line_error "bad stack name 'a/b'" "$S" a/b --dry-run
# bad stacks files: each names the file, the line and the field
bad() { # bad NEEDLE LINE
  printf '# comment\ncu130 /usr/local/cuda - - all\n%s\n' "$2" >"$TMP/s.conf"
  STACKS_CONF=$TMP/s.conf expect_one_line_error "$TMP/s.conf:3: $1" "$S" cu130 --dry-run
}
bad "expected 5 fields" "x 12.8.90 2.22.3 12.8.93"
bad "expected 5 fields" "x 12.8.90 2.22.3 12.8.93 all more"
bad "bad stack name 'x\$'" "x\$ 12.8.90 2.22.3 12.8.93 all"
bad "bad cuda '12.8-90'" "x 12.8-90 2.22.3 12.8.93 all"
bad "bad nccl 'latest'" "x 12.8.90 latest 12.8.93 all"
bad "bad nvrtc '12'" "x 12.8.90 2.22.3 12 all"
bad "bad ci 'Unit;gpu'" "x 12.8.90 2.22.3 12.8.93 Unit;gpu"
# a missing wheel version: pip's "from versions: ..." becomes one line; the stand-in fails for NCCL only
cat >"$TMP/python" <<'PY'
#!/usr/bin/env bash
for a in "$@"; do case $a in
  nvidia-nccl-cu12==*) echo "ERROR: Could not find a version that satisfies the requirement $a (from versions: 2.21.5, 2.22.3)" >&2
                       echo "ERROR: No matching distribution found for $a" >&2; exit 1 ;;
esac; done
exit 0
PY
chmod +x "$TMP/python"
PYTHON=$TMP/python STACK_WHEEL_CACHE=$TMP/cache expect_one_line_error \
  "stack-wheels: nvidia-nccl-cu12 has no wheel 2.99.1 (versions: 2.21.5, 2.22.3)" "$W" "$TMP/p" 12.8.90 2.99.1 12.8.93
[ ! -e "$TMP/p/STACK" ] || fail "a failed stack was stamped as built"
expect_one_line_error "NVRTC 13.0.88 is not CUDA 12" "$W" "$TMP/p" 12.8.90 2.22.3 13.0.88
expect_one_line_error "bad nccl version '2.x'" "$W" "$TMP/p" 12.8.90 2.x 12.8.93
echo "stacks-conf: ok"
