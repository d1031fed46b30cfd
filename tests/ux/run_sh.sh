#!/usr/bin/env bash
# run_sh.sh — scripts/run.sh --help (issue 42, item 1): exit 0, what the main job does, the variables that change
# what it measures (ARBENCH_ARGS, RESULTS_DIR) and the first thing to run on a GPU box; an unknown argument is
# one line pointing at --help, exit 2.
source "$(dirname "$0")/../lib/common.sh"
ar_counting
RUN="$ARBENCH_SRC/scripts/run.sh"
for h in --help -h; do
  "$RUN" "$h" >"$TMP/out" 2>"$TMP/err"
  check_eq "$h: exit 0" 0 $?
  check_eq "$h: nothing on stderr" 0 "$(wc -c <"$TMP/err")"
  check_eq "$h: usage line" "usage: scripts/run.sh [--print-build | --help]" "$(head -1 "$TMP/out")"
  for want in 'ARBENCH_ARGS="..."' "RESULTS_DIR=DIR" "BUILD_DIR=DIR" "MESON_OPTS=" "--print-build" \
              "tests/gpu/device-check.sh" "Exit status: 0"; do
    grep -qF -- "$want" "$TMP/out" && echo "ok: $h names $want" || check_fail "$h does not name $want"
  done
done
check_bad "unknown argument" "run.sh: unknown argument '--frobnicate' (allowed: one of --print-build, --help;" "$RUN" --frobnicate
check_bad "two arguments" "unknown argument '--help --print-build'" "$RUN" --help --print-build
finish
