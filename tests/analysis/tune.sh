#!/bin/bash
# tune.sh — `arbench tune` on a fixture with known crossovers: the exact NCCL tuner CSV lines (forced
# variants for 8 ranks, the backend's reported algo/proto/channels for 4), env lines, thresholds.
. "$(dirname "$0")/common.sh"
T="$FIX/tune.jsonl"
"$ARBENCH" tune "$T" -o "$TMP/out" >"$TMP/report" 2>"$TMP/err" || check_fail "tune exited $?"
# nccl:algo=Ring,proto=LL128 (fastest at 32K..128K) forces LL128 on a path NCCL did not report as NVLink:
# unsafe (doctor's rule), so it is never chosen, and the report says so once.
check_eq "tuner CSV lines (LL128 excluded)" "allreduce,0,32768,tree,ll,2,1,8,-1,-1
allreduce,32769,1048576,ring,simple,-1,1,8,-1,-1
allreduce,0,4096,tree,ll,2,1,4,-1,-1
allreduce,4097,65536,ring,simple,4,1,4,-1,-1" "$(grep -v '^#' "$TMP/out/nccl_tuner.conf")"
check_eq "tuner CSV: comments start at column 0 and lines fit the plugin's 256 bytes" 0 \
  "$(awk 'length($0) > 255 || /^ +#/' "$TMP/out/nccl_tuner.conf" | wc -l)"
check_eq "env exports (8 ranks live)" "export NCCL_ALGO=Ring
export NCCL_PROTO=Simple" "$(grep '^export' "$TMP/out/nccl_env.sh")"
check_eq "env: geometric mean stated" 1 "$(grep -c 'nccl:algo=Ring,proto=Simple, geometric-mean p50 28.56 us over 11 sizes' "$TMP/out/nccl_env.sh")"
check_eq "env: defaults compared" 1 "$(grep -c 'NCCL defaults (nccl): 34.01 us, 1.19x the best' "$TMP/out/nccl_env.sh")"
check_eq "env sources cleanly" "Ring Simple" "$(bash -c ". '$TMP/out/nccl_env.sh'; echo \$NCCL_ALGO \$NCCL_PROTO")"
check_eq "unsafe: excluded once in the report, with why" 1 "$(grep -c '^Excluded: nccl:algo=Ring,proto=LL128 forces LL128 on a path without NVLink' "$TMP/report")"
check_eq "unsafe: said in the CSV and env files" "1 1" "$(grep -c '^# Excluded: nccl:algo=Ring,proto=LL128' "$TMP/out/nccl_tuner.conf") $(grep -c '^# Excluded: nccl:algo=Ring,proto=LL128' "$TMP/out/nccl_env.sh")"
check_eq "unsafe: no ll128 anywhere it could be used" 0 "$(grep -v '^#' "$TMP/out/nccl_tuner.conf" "$TMP/out/nccl_env.sh" | grep -ic ll128)"
J="$TMP/out/thresholds.json"
check_eq "gpu custom_max_bytes" 131072 "$(jq '.groups[] | select(.family=="gpu") | .custom_max_bytes' "$J")"
check_eq "gpu use ranges" "p2p-oneshot:pull 0 16384;p2p-twoshot:flat 16385 131072" \
  "$(jq -r '[.groups[] | select(.family=="gpu") | .use[] | "\(.config) \(.min_bytes) \(.max_bytes)"] | join(";")' "$J")"
# win_ranges: the sizes where that custom one is the family's pick, the same picks as use: p2p-oneshot:pull beats
# the baselines to 32K (LL128 excluded from them), but p2p-twoshot:flat is the pick at 32K.
check_eq "gpu oneshot the pick 1K..16K, 2x at 1K" "[[1024,16384]] 2" \
  "$(jq -c '.groups[] | select(.family=="gpu") | .custom[] | select(.config=="p2p-oneshot:pull") | .win_ranges, .speedup_at_smallest' "$J" | paste -sd' ')"
check_eq "gpu twoshot the pick 32K..128K" "[[32768,131072]]" \
  "$(jq -c '.groups[] | select(.family=="gpu") | .custom[] | select(.config=="p2p-twoshot:flat") | .win_ranges' "$J")"
check_eq "host custom_max_bytes" 8192 "$(jq '.groups[] | select(.family=="host") | .custom_max_bytes' "$J")"
# 64K: mpi and p2p-twoshot:flat have the same p50 in one run each: undecided, and of equal p50s the simpler (mpi)
# is the pick. 1M: Ring,Simple 100 against nccl 105, within --drift: undecided too.
check_eq "report: ranges, verdicts and leads" "| 1K .. 8K | shm-oneshot | clear | 1.00 .. 4.00 | - | mpi | +25% .. +200% |
| 16K .. 64K | mpi | 2 clear, 1 undecided (measure 2+ runs) | 7.00 .. 16.00 | - | p2p-twoshot:flat | +0% .. +14% |
| 128K | p2p-twoshot:flat | clear | 20.00 | - | nccl:algo=Ring,proto=Simple | +40% |
| 256K .. 1M | nccl:algo=Ring,proto=Simple | 2 clear, 1 undecided (measure 2+ runs) | 36.00 .. 100.0 | - | nccl | +5% .. +11% |" \
  "$(grep -E '^\| [0-9]' "$TMP/report" | head -4 | nobound)"
# fused (allreduce + residual add + RMSNorm) is in no thresholds group, and the file says why; the records of the
# CPU stand-in of CUDA (a -Dcuda-emu build: its run's stack has "standin") are left out of everything, saying how
# many; --standin keeps them. Here both are 4x faster than p2p-oneshot, so in the gpu group they would take every range.
{ cat "$T"; jq -c 'select(.type == "run") | .run_id = "runS" | .stack = {"name": "cuda-standin", "standin":
    {"cuda": "CPU stand-in of the CUDA runtime"}}' "$T"
  jq -c 'select(.backend == "p2p-oneshot") | .backend = "fused" | .spec = "fused:pull"
    | .time_us |= map_values(. / 4) | .samples_us |= map(. / 4)' "$T"
  jq -c 'select(.backend == "p2p-oneshot") | .run_id = "runS" | .spec = "p2p-oneshot:standin"
    | .time_us |= map_values(. / 4) | .samples_us |= map(. / 4)' "$T"; } >"$TMP/fused.jsonl"
"$ARBENCH" tune "$TMP/fused.jsonl" --thresholds "$TMP/fused.json" >/dev/null 2>"$TMP/err" || check_fail "tune with fused exited $?"
check_eq "fused: excluded, with why" "fused:pull fused does allreduce + residual add + RMSNorm" \
  "$(jq -r '[.excluded[] | "\(.config) \(.why | split(", more")[0])"] | join(";")' "$TMP/fused.json")"
check_eq "fused, stand-in: gpu use ranges unchanged" "p2p-oneshot:pull 0 16384;p2p-twoshot:flat 16385 131072" \
  "$(jq -r '[.groups[] | select(.family=="gpu") | .use[] | "\(.config) \(.min_bytes) \(.max_bytes)"] | join(";")' "$TMP/fused.json")"
check_eq "stand-in: left out, saying how many" \
  "arbench tune: left out $(grep -c '"p2p-oneshot"' "$T") results of the CPU stand-in of CUDA (stack cuda-standin): its times are not GPU numbers (--standin keeps them)" \
  "$(head -1 "$TMP/err")"
"$ARBENCH" tune "$TMP/fused.jsonl" --standin --thresholds "$TMP/standin.json" >/dev/null 2>"$TMP/err" ||
  check_fail "tune --standin exited $?"
check_eq "--standin: its records kept, labelled with their stack (they win the gpu group)" "p2p-oneshot:standin [cuda-standin]" \
  "$(jq -r '[.groups[] | select(.family=="gpu") | .use[].config] | unique | join(";")' "$TMP/standin.json")"
check_eq "nothing excluded without them" "[]" "$(jq -c .excluded "$J")"
# The host backends of a stand-in build ran on the CPU for real: kept (run.sh's main job on a -Dcuda-emu build).
jq -c 'if .type == "run" then .stack = {"name": "cuda-standin", "standin": {"cuda": "CPU stand-in of the CUDA runtime"}}
  else . end' "$FIX/runsh-host.jsonl" >"$TMP/hoststandin.jsonl"
"$ARBENCH" tune "$TMP/hoststandin.jsonl" -o "$TMP/hs" >/dev/null 2>"$TMP/err" || check_fail "tune of a stand-in build's host records exited $?"
check_eq "stand-in build's host backends: kept, none left out, a host group" "0 1" \
  "$(grep -c 'left out' "$TMP/err") $(jq -r '.groups | length' "$TMP/hs/thresholds.json" 2>/dev/null)"
# Only the nccl backend, 8 ranks: the forced variants alone decide.
"$ARBENCH" tune "$T" --backend nccl --ranks 8 >"$TMP/r2" 2>&1 || check_fail "filtered tune exited $?"
check_eq "nccl-only report" "| 1K .. 32K | nccl:algo=Tree,proto=LL,ctas=2 | clear | 10.00 .. 20.00 | - | nccl:algo=Ring,proto=Simple | +10% .. +100% |
| 64K .. 1M | nccl:algo=Ring,proto=Simple | 4 clear, 1 undecided (measure 2+ runs) | 24.00 .. 100.0 | - | nccl | +5% .. +21% |" \
  "$(grep -E '^\| [0-9]' "$TMP/r2" | nobound)"
# Results with no NCCL at all: the CSV says so instead of inventing lines.
"$ARBENCH" tune "$T" --backend mpi,shm-oneshot --tuner-csv "$TMP/none.conf" >/dev/null 2>&1 || check_fail "mpi-only tune exited $?"
check_eq "no nccl: no CSV lines" 0 "$(grep -vc '^#' "$TMP/none.conf")"
check_bad "no files" "no results files given" "$ARBENCH" tune
check_bad "unknown option" "unknown option '--bogus'" "$ARBENCH" tune --bogus "$T"
check_bad "bad ranks" "bad --ranks value '0' (expected a positive integer)" "$ARBENCH" tune --ranks 0 "$T"
check_bad "absent ranks" "--ranks 3: no results with that many ranks (present: 8, 4)" "$ARBENCH" tune --ranks 3 "$T"
check_bad "unwritable output" "cannot write '/nonexistent/dir/x.conf'" "$ARBENCH" tune --tuner-csv /nonexistent/dir/x.conf "$T"
finish
