#!/bin/bash
# calc.sh — `arbench impact`'s numbers (bench/impact/calc.c, interp.c) on a crafted 8-GPU PCIe file whose levels
# are hand-chosen (tests/fixtures/impact/make_impact.py): a Llama-3-70B-like config.json (hidden 8192, 80 layers,
# bf16) at TP 8 under vLLM; every expected value below is worked out by hand from those levels.
. "$(dirname "$0")/common.sh"
J="$TMP/j.json"
"$ARBENCH" impact --model "$CFG" --tp 8 --tokens 1,3,12,32,1000 --tps 25,20,10,8,1 --format json "$TMP/a.jsonl" >"$J" ||
  check_fail "impact json exited $?"
row() { jq -r --argjson t "$1" ".groups[0].rows[] | select(.tokens == \$t) | $2" "$J"; }
path() { row "$1" ".paths[] | select(.path == \"$2\") | $3"; }

# 1 token: 161 allreduces (2 x 80 layers + 1 embedding) of 1 x 8192 x 2 = 16384 B.
check_eq "model: 161 allreduces per forward" 161 "$(jq .model.allreduces_per_forward "$J")"
check_eq "1 token: 16384 B, 161 calls" "16384 161" "$(row 1 '"\(.bytes) \(.allreduces)"')"
# vLLM at TP 8 without NVLink: custom allreduce off, so its default is NCCL with its defaults: 20 us a call.
check_eq "1 token: the default is nccl (vLLM's path at TP 8 on PCIe)" "nccl nccl" \
  "$(path 1 default '"\(.config) \(.engine_path)"')"
check_near "1 token: default per forward 161 x 20 = 3220 us" 3220 "$(path 1 default .per_forward_us)"
check_near "1 token: default per forward low 161 x 19.6 = 3155.6" 3155.6 "$(path 1 default .per_forward_lo_us)"
check_near "1 token: default per forward high 161 x 20.4 = 3284.4" 3284.4 "$(path 1 default .per_forward_hi_us)"
# Unpatched, vLLM reaches NCCL's settings only: NCCL_PROTO=LL at 15 us; saving 161 x 5 = 805 us.
check_eq "1 token: best unpatched is NCCL_PROTO=LL, no patch" "nccl {NCCL_PROTO=LL}|" \
  "$(path 1 'best unpatched' '"\(.config)|\(.patch)"')"
check_near "1 token: unpatched per forward 161 x 15 = 2415" 2415 "$(path 1 'best unpatched' .per_forward_us)"
check_near "1 token: unpatched saving 805 us per forward" 805 "$(path 1 'best unpatched' '.saving_per_forward_us[0]')"
check_near "1 token: unpatched saving low 3155.6 - 161 x 15.3 = 692.3" 692.3 "$(path 1 'best unpatched' '.saving_per_forward_us[1]')"
check_near "1 token: unpatched saving high 3284.4 - 161 x 14.7 = 917.7" 917.7 "$(path 1 'best unpatched' '.saving_per_forward_us[2]')"
# The pick: p2p-oneshot at 8 us (the engine's one-stage kernel, which needs its PCIe cut-off patched).
check_eq "1 token: the pick is p2p-oneshot, clear" "p2p-oneshot clear" "$(path 1 pick '"\(.config) \(.verdict)"')"
check_eq "1 token: the pick names vLLM's PCIe cut-off as the patch" 1 \
  "$(path 1 pick .patch | grep -c 'custom allreduce forced on: vLLM turns custom allreduce off above 2 GPUs without NVLink')"
check_near "1 token: pick per forward 161 x 8 = 1288" 1288 "$(path 1 pick .per_forward_us)"
check_near "1 token: pick saving 3220 - 1288 = 1932 us per forward" 1932 "$(path 1 pick '.saving_per_forward_us[0]')"
check_near "1 token: per output token = per forward (one token per forward)" 1932 "$(path 1 pick '.saving_per_token_us[0]')"
# tok/s: 25 tok/s measured = 40 ms a forward; 40 - 1.932 = 38.068 ms -> 1000 / 38.068.
check_near "1 token: step 40 ms from 25 tok/s" 40 "$(row 1 .step_ms)"
check_near "1 token: pick tok/s 1000 / 38.068" 26.268782179258169 "$(path 1 pick '.tps[0]')"
check_near "1 token: pick tok/s low 1000 / (40 - 1.8418)" "$(awk 'BEGIN { printf "%.17g", 1000 / (40 - (3155.6 - 161 * 8.16) / 1000) }')" \
  "$(path 1 pick '.tps[1]')"
check_near "1 token: unpatched tok/s 1000 / 39.195" "$(awk 'BEGIN { printf "%.17g", 1000 / 39.195 }')" "$(path 1 'best unpatched' '.tps[0]')"
check_eq "1 token: measured, not interpolated" false "$(path 1 pick .interpolated)"

# 3 tokens: 49152 B lies between 32 KiB and 64 KiB: log-log, t = t0 (t1/t0)^(log(1.5)/log 2).
ll() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.17g", a * (b / a) ^ (log(1.5) / log(2)) }'; }
check_eq "3 tokens: interpolated line" "49152 true [32768,65536]" "$(echo "$(row 3 .bytes) $(path 3 default '.interpolated') $(path 3 default '.between | tostring')")"
check_near "3 tokens: nccl 24 -> 30 us in log-log at 48 KiB" "$(ll 24 30)" "$(path 3 default .per_call_us)"
check_near "3 tokens: its low end from the low runs" "$(ll 23.52 29.4)" "$(path 3 default .per_call_lo_us)"
check_near "3 tokens: pick p2p-oneshot 10 -> 12 us in log-log" "$(ll 10 12)" "$(path 3 pick .per_call_us)"
check_near "3 tokens: pick saving 161 x (nccl - oneshot)" "$(awk -v a="$(ll 24 30)" -v b="$(ll 10 12)" 'BEGIN { printf "%.17g", 161 * (a - b) }')" \
  "$(path 3 pick '.saving_per_forward_us[0]')"

# 12 tokens: 196608 B between 128 KiB (pick p2p-oneshot) and 256 KiB (pick nccl): the pick is refused.
check_eq "12 tokens: pick refused, naming the size to measure" \
  "the pick changes between 131072 B and 262144 B: measure 196608 B" "$(path 12 pick .refused)"
check_eq "12 tokens: the default still computed (nccl both sides)" true "$(path 12 default .ok)"
# 32 tokens = batch 32: 524288 B, measured: nccl 60, NCCL_PROTO=LL 70 (unpatched best is the default), oneshot 40.
check_eq "32 tokens: 524288 B; unpatched best is nccl itself, saving 0" "524288 nccl 0" \
  "$(echo "$(row 32 .bytes) $(path 32 'best unpatched' .config) $(path 32 'best unpatched' '.saving_per_forward_us[0]')")"
check_near "32 tokens: pick saving 161 x 20 = 3220" 3220 "$(path 32 pick '.saving_per_forward_us[0]')"
check_near "32 tokens: 8 tok/s = 125 ms; pick 1000 / (125 - 3.22)" "$(awk 'BEGIN { printf "%.17g", 1000 / 121.78 }')" \
  "$(path 32 pick '.tps[0]')"
# 1000 tokens: 16384000 B above the largest measured size: every cell refused, naming it.
check_eq "1000 tokens: every path refused" "false false false" "$(row 1000 '[.paths[].ok] | map(tostring) | join(" ")')"
check_eq "1000 tokens: the pick names the size to measure" \
  "16384000 B is outside the measured sizes 8192..1048576 B: measure 16384000 B" "$(path 1000 pick .refused)"
# below the smallest: hidden 2048 bf16 at 1 token = 4096 B.
"$ARBENCH" impact --model hidden=2048,layers=2,dtype=bf16 --tp 8 --format json "$TMP/a.jsonl" >"$TMP/small.json"
check_eq "4096 B below 8 KiB: refused" "4096 B is outside the measured sizes 8192..1048576 B: measure 4096 B" \
  "$(jq -r '.groups[0].rows[0].paths[2].refused' "$TMP/small.json")"
check_eq "hidden=2048,layers=2: 5 allreduces" 5 "$(jq '.groups[0].rows[0].allreduces' "$TMP/small.json")"

# An EAGLE-style verify: batch 1 x (3 draft + 1) = 4 tokens = 65536 B, 2.5 tokens accepted per forward, 40 ms step.
"$ARBENCH" impact --model "$CFG" --tp 8 --tokens 4 --step-ms 40 --accept 2.5 --format json "$TMP/a.jsonl" >"$TMP/v.json"
vp() { jq -r ".groups[0].rows[0].paths[2] | $1" "$TMP/v.json"; }
check_near "verify: pick saving 161 x (30 - 12) = 2898 us per forward" 2898 "$(vp '.saving_per_forward_us[0]')"
check_near "verify: per output token 2898 / 2.5 = 1159.2" 1159.2 "$(vp '.saving_per_token_us[0]')"
check_near "verify: tok/s 2.5 x 1000 / (40 - 2.898)" "$(awk 'BEGIN { printf "%.17g", 2500 / 37.102 }')" "$(vp '.tps[0]')"

# The timing method: plain launches say what graphs change; -G records say they match the engines.
check_eq "plain launches: the note gives calls x 3 us" 1 "$(jq -r '.groups[0].method' "$J" | grep -c '161 x 3 us = 483 us per forward')"
"$PY" "$FIX/make_impact.py" "$TMP/g.jsonl" cu130-nccl2.28.9 1 --graph
check_eq "graph records: CUDA graphs, as the engines" "timing: CUDA graphs (-G), as the engines run decode" \
  "$("$ARBENCH" impact --model "$CFG" --tp 8 --format json "$TMP/g.jsonl" | jq -r '.groups[0].method')"

# Two stacks: never pooled; --by stack gives one table each and the difference (B at half of A's times).
"$PY" "$FIX/make_impact.py" "$TMP/b.jsonl" cu129-nccl2.27.7 0.5
check_bad "two stacks without --by" "give --by stack" "$ARBENCH" impact --model "$CFG" --tp 8 "$TMP/a.jsonl" "$TMP/b.jsonl"
"$ARBENCH" impact --model "$CFG" --tp 8 --by stack --format json "$TMP/a.jsonl" "$TMP/b.jsonl" >"$TMP/s.json"
check_eq "by stack: two groups" "cu130-nccl2.28.9 cu129-nccl2.27.7" "$(jq -r '[.groups[].stack] | join(" ")' "$TMP/s.json")"
check_near "by stack: the second's pick saves 1288 - 644 = 644 us per forward" 644 \
  "$(jq '.stacks[0].pick_saving_per_forward_us' "$TMP/s.json")"
check_near "by stack: its default saves 3220 - 1610 = 1610 us" 1610 "$(jq '.stacks[0].default_saving_per_forward_us' "$TMP/s.json")"
"$ARBENCH" impact --model "$CFG" --tp 8 --by stack "$TMP/a.jsonl" "$TMP/b.jsonl" >"$TMP/s.md"
check_eq "by stack markdown: the difference row" "| 1 | cu129-nccl2.27.7 | -1610.0 | -644.0 | 0.644 |" "$(grep '^| 1 | cu129' "$TMP/s.md")"

# Fused allreduce + residual add + RMSNorm (make_impact.py --fused: 0.5x NCCL, its unfused NCCL baseline NCCL + 6 us): at
# the 2 x 80 = 160 places, 160 x (26 - 10) = 2560 us a forward at 1 token; the plain picks never take the fused kernel
# (its time holds the add and the norm): at 16 tokens = 256 KiB the pick stays nccl (44 us), not fused (22 us).
"$PY" "$FIX/make_impact.py" "$TMP/f.jsonl" cu130-nccl2.28.9 1 --fused
"$ARBENCH" impact --model "$CFG" --tp 8 --tokens 1,16 --format json "$TMP/f.jsonl" >"$TMP/f.json"
fz() { jq -r --argjson t "$1" ".groups[0].rows[] | select(.tokens == \$t) | .paths[] | select(.path == \"$2\") | $3" "$TMP/f.json"; }
check_eq "fused: 160 calls against the unfused NCCL baseline" "160 fused:hidden=8192,unfused=nccl" "$(fz 1 fused '"\(.calls) \(.against)"')"
check_near "fused: saves 160 x (26 - 10) = 2560 us per forward" 2560 "$(fz 1 fused '.saving_per_forward_us[0]')"
check_near "fused: per forward 160 x 10 = 1600" 1600 "$(fz 1 fused .per_forward_us)"
check_eq "16 tokens: the pick is nccl, never the fused kernel" nccl "$(fz 16 pick .config)"

# The markdown row of 1 token's pick, to the digit.
"$ARBENCH" impact --model "$CFG" --tp 8 --tps 25 "$TMP/a.jsonl" >"$TMP/md"
check_eq "markdown: the pick's row" "| 1 | 16384 B | pick | p2p-oneshot | 8.00 | 1288.0 [1262.2, 1313.8] | 1932.0 [1841.8, 2022.2] | 1932.0 [1841.8, 2022.2] | 26.27 [26.21, 26.33] | clear |" \
  "$(grep '| pick |' "$TMP/md" | cut -d'|' -f1-11)|"
finish
