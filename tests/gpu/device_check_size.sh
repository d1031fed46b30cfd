# device_check_size.sh — how many checked calls a device-check step can afford within its timeout, from a
# per-call cost measured on this box (ranks sharing one GPU time-slice their kernels without MPS). Source it.
# dc_per_call T_SMALL T_LARGE C_SMALL C_LARGE: seconds per checked call from two timed runs of C_SMALL and
#   C_LARGE calls (the difference drops mpirun's start-up and the fixed setup); 0 when the larger was not slower.
# dc_calls SECONDS_PER_CALL BUDGET_S MAX: min(MAX, floor(BUDGET_S / SECONDS_PER_CALL)); MAX for 0. No floor: a
#   floor of 100 calls overran the budget above BUDGET_S / 100 per call (1.8 s for 180 s); 0 when not one call
#   fits, and the caller skips the step with a note.
dc_per_call() {
  awk -v a="$1" -v b="$2" -v ca="$3" -v cb="$4" 'BEGIN {
    num = "^[0-9]+([.][0-9]+)?$"
    if (a !~ num || b !~ num || ca !~ /^[0-9]+$/ || cb !~ /^[0-9]+$/ || cb <= ca) {
      print "dc_per_call: bad arguments (want T_SMALL T_LARGE C_SMALL C_LARGE, C_LARGE > C_SMALL)" > "/dev/stderr"; exit 2 }
    d = (b - a) / (cb - ca); printf "%.6f\n", (d > 0 ? d : 0) }'
}
dc_calls() {
  awk -v per="$1" -v budget="$2" -v max="$3" 'BEGIN {
    num = "^[0-9]+([.][0-9]+)?$"
    if (per !~ num || budget !~ num || max !~ /^[0-9]+$/) {
      print "dc_calls: bad arguments (want SECONDS_PER_CALL BUDGET_S MAX)" > "/dev/stderr"; exit 2 }
    n = per > 0 ? int(budget / per) : max
    if (n > max) n = max
    print n }'
}
