#!/usr/bin/env bash
# first_contact.sh — tests/gpu/first-contact.sh's own mechanics without a GPU: the steps' summary, the budget that
# leaves a step 'not-run' (and the exit status it then gives), the GPU steps' skip line, one archive of the logs.
source "$(dirname "$0")/../lib/common.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
[ -n "${ARBENCH:-}" ] || fail "ARBENCH is not set"
rc=0
OUT=$t/a FIRST_CONTACT_ARBENCH=$ARBENCH CUDA_VISIBLE_DEVICES=-1 bash "$src/tests/gpu/first-contact.sh" >"$t/a.out" 2>&1 || rc=$?
expect_eq "every step ran and passed" 0 "$rc"
expect_eq "the steps" "version host-sanity" "$(awk -F'\t' 'NR > 1 { printf "%s%s", s, $1; s = " " }' "$t/a/summary.tsv")"
expect_eq "their exit status" "0 0" "$(awk -F'\t' 'NR > 1 { printf "%s%s", s, $3; s = " " }' "$t/a/summary.tsv")"
grep -q 'skipped: no CUDA device (the GPU steps)' "$t/a.out" || fail "no skip line for the GPU steps: $(cat "$t/a.out")"
tar -tzf "$t/a/first-contact-logs.tgz" | qgrep -q 'logs/host-sanity.log' || fail "the host step's log is not in the archive"
grep -q '"backend": *"shm-oneshot"' "$t/a/host.jsonl" || fail "no shm-oneshot record from the host step"
# A budget that is spent before a step starts: the step is listed not-run and the script does not pass.
rc=0
OUT=$t/b FIRST_CONTACT_ARBENCH=$ARBENCH FIRST_CONTACT_BUDGET=5 CUDA_VISIBLE_DEVICES=-1 \
  bash "$src/tests/gpu/first-contact.sh" >"$t/b.out" 2>&1 || rc=$?
expect_eq "a step left out fails the run" 1 "$rc"
expect_eq "left out, not run" "version not-run" "$(awk -F'\t' 'NR == 2 { print $1, $3 }' "$t/b/summary.tsv")"
# FIRST_CONTACT_ONLY reruns the named steps alone.
OUT=$t/c FIRST_CONTACT_ARBENCH=$ARBENCH FIRST_CONTACT_ONLY=version CUDA_VISIBLE_DEVICES=-1 \
  bash "$src/tests/gpu/first-contact.sh" >"$t/c.out" 2>&1
expect_eq "only the named step" "version" "$(awk -F'\t' 'NR > 1 { print $1 }' "$t/c/summary.tsv")"
echo "first_contact: 8 checks"
