# common.sh — the analysis tests' fixtures (FIX, NT) on top of tests/lib/common.sh, in counting mode:
# every failed check_* is reported and the script ends with finish.
source "$ARBENCH_SRC/tests/lib/common.sh"
ar_counting
FIX="$ARBENCH_SRC/tests/fixtures/analysis"
NT="$ARBENCH_SRC/tests/fixtures/nccl-tests"
# tune's rows without their last column (the bound, checked against table's json by agree.py and sampleless.sh)
nobound() { sed -E 's/\| [^|]*\|$/|/'; }
