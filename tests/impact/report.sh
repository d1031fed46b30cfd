#!/bin/bash
# report.sh — `arbench report --model M` (bench/page/impact.c): the page's impact section is `arbench impact`'s numbers
# per model and TP (the crafted file: TP 8, batch 1, 8, 32), a bad --model is one line before anything runs.
. "$(dirname "$0")/common.sh"
"$ARBENCH" report "$TMP/a.jsonl" --model "$CFG" -o "$TMP/r.html" >/dev/null 2>"$TMP/err" || check_fail "report exited $?"
sec=$(sed -n '/<section id="impact">/,/<\/section>/p' "$TMP/r.html")
check_eq "the section is there, one model at TP 8" 1 "$(grep -c '<h4>llama-70b-config.json at TP 8, vllm</h4>' <<<"$sec")"
check_eq "batch 1: 16384 B, default nccl 3220.0 us, LL saves 805.0, the pick 1932.0" 1 \
  "$(sed 's/ data-h="[^"]*"//g' <<<"$sec" | grep -c '<tr><td>1</td><td>16384</td><td class="l"><span class="lab">nccl</span></td><td>3220.0</td><td class="l">.*LL}</span></td><td>+805.0</td><td class="l"><span class="lab">p2p-oneshot</span></td><td>+1932.0</td>')"
check_eq "batch 32: the pick saves 3220.0 us" 1 "$(sed 's/ data-h="[^"]*"//g' <<<"$sec" | grep -c '<tr><td>32</td><td>524288</td>.*<td>+3220.0</td>')"
# The report's layout rules (docs/report.md): the table stacks into cards at phone width, every cell labelled.
check_eq "a stacked table" 1 "$(grep -c '<table class="decide stack">' <<<"$sec")"
check_eq "every cell of batch 1's row labelled by its column" 9 \
  "$(grep '<td data-h="tokens">1</td>' <<<"$sec" | grep -o '<td[^>]* data-h="[^"]*"' | wc -l)"
check_eq "the pick's saving labelled" 3 "$(grep -o '<td data-h="saves per forward (us)">+[0-9.]*</td><td class="l" data-h="patch the pick needs">' <<<"$sec" | wc -l)"
check_eq "the patch is named" 3 "$(grep -c 'custom allreduce forced on: vLLM turns custom allreduce off above 2 GPUs' <<<"$sec")"
"$ARBENCH" report "$TMP/a.jsonl" -o "$TMP/plain.html" >/dev/null 2>&1
check_eq "without --model: no section" 0 "$(grep -c 'id="impact"' "$TMP/plain.html")"
jq '.num_local_experts = 8' "$CFG" >"$TMP/moe.json"
check_bad "report --model of a MoE config" "is a mixture-of-experts model" "$ARBENCH" report "$TMP/a.jsonl" --model "$TMP/moe.json" -o "$TMP/x.html"
check_eq "nothing written for a bad --model" 0 "$(ls "$TMP/x.html" 2>/dev/null | wc -l)"
# A model the results cannot price (a dtype nothing was measured in): no empty section; the summary says why.
jq '.torch_dtype = "float32"' "$CFG" >"$TMP/fp32.json"
"$ARBENCH" report "$TMP/a.jsonl" --model "$TMP/fp32.json" -o "$TMP/fp32.html" >/dev/null 2>&1 || check_fail "report exited $?"
check_eq "no impact section when nothing can be priced" 0 "$(grep -c '<section id="impact">' "$TMP/fp32.html")"
check_eq "the summary names it and why" 1 "$(grep -c 'What the allreduce costs a model.*no results at a TP' "$TMP/fp32.html")"
finish
