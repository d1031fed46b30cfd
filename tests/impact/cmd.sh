#!/bin/bash
# cmd.sh — `arbench impact`'s options and formats (bench/impact/cmd.c): csv rows equal to the json's, the engine
# named, and every bad option one line, exit 2, before anything is read.
. "$(dirname "$0")/common.sh"
A="$TMP/a.jsonl"
"$ARBENCH" impact --model "$CFG" --tp 8 --tokens 1,32 --tps 25,8 --format csv "$A" >"$TMP/c.csv" || check_fail "csv exited $?"
check_eq "csv: header + 2 tokens x 3 paths" 7 "$(wc -l <"$TMP/c.csv")"
check_eq "csv: 1 token's pick, per forward and saving" "p2p-oneshot 1288 1932" \
  "$(awk -F, '$2 == 1 && $5 == "pick" { gsub(/"/, "", $6); print $6, $11, $14 }' "$TMP/c.csv")"
check_eq "csv: header names the columns" "stack,tokens,bytes,allreduces,path,config" "$(head -1 "$TMP/c.csv" | cut -d, -f1-6)"
"$ARBENCH" impact --model "$CFG" --tp 8 --engine sglang --format json "$A" >"$TMP/sg.json"
check_eq "sglang: the engine and its PCIe cut-off named in the patch" "sglang 1" \
  "$(jq -r '.engine' "$TMP/sg.json") $(jq -r '.groups[0].rows[0].paths[2].patch' "$TMP/sg.json" | grep -c 'SGLang turns custom allreduce off')"
"$ARBENCH" impact --model "$CFG" --tp 8 "$A" >"$TMP/plain.md"
check_eq "without --tps or --step-ms: no tok/s printed" "- | clear" "$(grep '| pick |' "$TMP/plain.md" | cut -d'|' -f10,11 | tr -s ' ' | sed 's/^ //;s/ $//')"
M=(--model "$CFG")
check_bad "no --model" "no --model" "$ARBENCH" impact --tp 8 "$A"
check_bad "no --tp" "no --tp N" "$ARBENCH" impact "${M[@]}" "$A"
check_bad "no files" "no results files" "$ARBENCH" impact "${M[@]}" --tp 8
check_bad "--tp 1" "bad --tp '1'" "$ARBENCH" impact "${M[@]}" --tp 1 "$A"
check_bad "--tokens 0" "bad --tokens '1,0'" "$ARBENCH" impact "${M[@]}" --tp 8 --tokens 1,0 "$A"
check_bad "--tokens text" "bad --tokens 'x'" "$ARBENCH" impact "${M[@]}" --tp 8 --tokens x "$A"
check_bad "--engine trtllm" "bad --engine 'trtllm' (expected vllm or sglang)" "$ARBENCH" impact "${M[@]}" --tp 8 --engine trtllm "$A"
check_bad "--tps count" "--tps has 1 value for 2 --tokens values" "$ARBENCH" impact "${M[@]}" --tp 8 --tokens 1,2 --tps 25 "$A"
check_bad "--tps and --step-ms" "--tps and --step-ms both given" "$ARBENCH" impact "${M[@]}" --tp 8 --tps 25 --step-ms 40 "$A"
check_bad "--step-ms 0" "bad --step-ms '0'" "$ARBENCH" impact "${M[@]}" --tp 8 --step-ms 0 "$A"
check_bad "--accept 0.5" "bad --accept '0.5'" "$ARBENCH" impact "${M[@]}" --tp 8 --accept 0.5 "$A"
check_bad "--format html" "bad --format 'html'" "$ARBENCH" impact "${M[@]}" --tp 8 --format html "$A"
check_bad "--by host" "bad --by 'host' (expected stack)" "$ARBENCH" impact "${M[@]}" --tp 8 --by host "$A"
check_bad "unknown option" "--bogus" "$ARBENCH" impact "${M[@]}" --tp 8 --bogus "$A"
finish
