#!/bin/bash
# model.sh — `impact --model` (bench/impact/model.c): a config.json's allreduce count and message size, and every
# config it cannot model or read refused with one line, exit 2, before any results file is read.
. "$(dirname "$0")/common.sh"
imp() { "$ARBENCH" impact --tp 8 --format json --model "$@"; }
check_eq "Llama-3-70B-like config: 8192 x 80 bf16 -> 161 calls of 16384 B" "8192 80 bfloat16 2 161 16384" \
  "$(imp "$CFG" "$TMP/a.jsonl" | jq -r '"\(.model.hidden) \(.model.layers) \(.model.dtype) \(.model.element_bytes) \(.model.allreduces_per_forward) \(.groups[0].rows[0].bytes)"')"
check_eq "inline: hidden=8192,layers=80,dtype=bfloat16 is the same" "161 16384" \
  "$(imp hidden=8192,layers=80,dtype=bfloat16 "$TMP/a.jsonl" | jq -r '"\(.model.allreduces_per_forward) \(.groups[0].rows[0].bytes)"')"
# transformers >= 4.56 writes "dtype"; float32 is 4 bytes an element (no float results here: refused by dtype).
jq 'del(.torch_dtype) | .dtype = "bfloat16"' "$CFG" >"$TMP/new.json"
check_eq "dtype key accepted" 16384 "$(imp "$TMP/new.json" "$TMP/a.jsonl" | jq '.groups[0].rows[0].bytes')"
jq '.torch_dtype = "float32"' "$CFG" >"$TMP/f32.json"
check_bad "float32 model on bf16 results" "no results of float at 8 ranks" imp "$TMP/f32.json" "$TMP/a.jsonl"
check_bad "TP 4 on 8-rank results" "no results of bfloat16 at 4 ranks" \
  "$ARBENCH" impact --tp 4 --model "$CFG" "$TMP/a.jsonl"

# What it cannot model or read: one line naming the file and why; the results file is not reached.
jq '.num_local_experts = 8' "$CFG" >"$TMP/moe.json"
check_bad "MoE" "is a mixture-of-experts model" imp "$TMP/moe.json" /nonexistent.jsonl
jq '.is_encoder_decoder = true' "$CFG" >"$TMP/encdec.json"
check_bad "encoder-decoder" "is an encoder-decoder model" imp "$TMP/encdec.json" /nonexistent.jsonl
jq '{text_config: ., model_type: "llava"}' "$CFG" >"$TMP/mm.json"
check_bad "multimodal" "its text model's keys are under text_config" imp "$TMP/mm.json" /nonexistent.jsonl
jq 'del(.hidden_size)' "$CFG" >"$TMP/nohidden.json"
check_bad "no hidden_size" "hidden_size missing" imp "$TMP/nohidden.json" /nonexistent.jsonl
jq '.num_hidden_layers = "80"' "$CFG" >"$TMP/strlayers.json"
check_bad "layers as a string" "num_hidden_layers missing or not a positive integer" imp "$TMP/strlayers.json" /x
jq 'del(.torch_dtype)' "$CFG" >"$TMP/nodtype.json"
check_bad "no dtype" "torch_dtype missing" imp "$TMP/nodtype.json" /x
jq '.torch_dtype = "float8_e4m3fn"' "$CFG" >"$TMP/fp8.json"
check_bad "fp8" "torch_dtype 'float8_e4m3fn' cannot be modelled" imp "$TMP/fp8.json" /x
printf '{"hidden_size": 8192,' >"$TMP/torn.json"
check_bad "torn JSON" "not a JSON object" imp "$TMP/torn.json" /x
printf '[1, 2]' >"$TMP/arr.json"
check_bad "a JSON array" "not a JSON object" imp "$TMP/arr.json" /x
check_bad "a directory" "'$TMP' is a directory, not a --model config.json (give a regular file)" imp "$TMP" /x
mkfifo "$TMP/fifo"
check_bad "a FIFO, without blocking" "'$TMP/fifo' is a FIFO (named pipe), not a --model config.json" \
  timeout 10 "$ARBENCH" impact --tp 8 --model "$TMP/fifo" /x
# bench/infile.c's checks (issue 50): /proc files, devices and binary data are refused by what they are
check_bad "a /proc file" "'/proc/self/status' is a /proc file (its size is unknown until read, some never end), not a --model config.json" \
  imp /proc/self/status /x
check_bad "a character device" "'/dev/zero' is a character device, not a --model config.json" imp /dev/zero /x
printf '{"hidden_size": 8192}\0' >"$TMP/nul.json"
check_bad "binary data" "'$TMP/nul.json' has NUL bytes in its first 4096 bytes: binary data, not a --model config.json" \
  imp "$TMP/nul.json" /x
head -c 1100000 /dev/zero | tr '\0' ' ' >"$TMP/big.json"
check_bad "larger than 1 MiB" "larger than 1 MiB" imp "$TMP/big.json" /x
check_bad "missing file" "cannot open --model config.json '/nonexistent/config.json': No such file or directory" \
  imp /nonexistent/config.json /x
check_bad "inline: hidden 0" "hidden=0" imp hidden=0,layers=80,dtype=bf16 /x
check_bad "inline: dtype missing" "expected a config.json or hidden=N,layers=N,dtype" imp hidden=8192,layers=80 /x
check_bad "inline: unknown key" "heads=8" imp hidden=8192,layers=80,dtype=bf16,heads=8 /x
check_bad "inline: int8" "dtype=int8" imp hidden=8192,layers=80,dtype=int8 /x
finish
