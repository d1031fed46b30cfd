#!/bin/bash
# serving.sh — `arbench tune -o DIR`'s serving-engine settings (bench/analysis/serving*.c) on GPU results crafted
# with known crossovers (tests/fixtures/analysis/make_serving.py): custom allreduce on or off per engine and
# (ranks, dtype), the crossover in bytes and tokens, flags, env, needs_patch with the engines' own values, the .sh
# files exporting exactly the JSON's env, the baseline as the engine runs it (run --as), what is left out, errors.
. "$(dirname "$0")/common.sh"
MK="$FIX/make_serving.py"
for m in main as kernels host standin mixed; do "$PY" "$MK" $m "$TMP/$m.jsonl" || check_fail "make_serving.py $m"; done
tune() { local out=$1; shift; "$ARBENCH" tune "$@" -o "$TMP/$out" >"$TMP/$out.report" 2>"$TMP/$out.err"; }
tune main "$TMP/main.jsonl" --hidden 4096 || check_fail "tune main exited $?"
S="$TMP/main/serving.json"
grp() { # grp ENGINE RANKS DTYPE JQ: JQ on that group
  jq -c --arg e "$1" --argjson r "$2" --arg d "$3" ".engines[\$e][] | select(.ranks == \$r and .dtype == \$d) | $4" "$S"; }
patch() { grp "$1" "$2" "$3" ".needs_patch[] | select(.what == \"$4\") | $5"; }

# TP=2 bfloat16: p2p-oneshot (the engines' one-stage kernel) wins to 256 KiB, NCCL above.
for e in vllm sglang; do
  check_eq "$e TP2: custom on to 262144 B = 32 tokens of 4096 bf16, no flag" 'true 262144 32 262144 []' \
    "$(grp $e 2 bfloat16 '.custom_allreduce, .custom_max_bytes, .custom_max_tokens, .engine_custom_max_bytes, .flags' | paste -sd' ')"
  check_eq "$e TP2: p2p-oneshot stood for custom-1stage" '["p2p-oneshot"]' \
    "$(grp $e 2 bfloat16 '.paths[] | select(.path == "custom-1stage") | .configs')"
  check_eq "$e TP2: the 8 MiB cap against NCCL measured faster from 512 KiB" "8388608 524288 32" \
    "$(patch $e 2 bfloat16 "custom allreduce size cap" '.measured | .engine_value, .first_size_against, .value_tokens' | paste -sd' ')"
done
# vLLM compares bytes < max_size, SGLang bytes <= max_size: the value each would need.
check_eq "vLLM's own value: 262145 (bytes < max_size)" '262145 "bytes < max_size"' \
  "$(patch vllm 2 bfloat16 "custom allreduce size cap" '.measured | .value, .compare' | paste -sd' ')"
check_eq "SGLang's own value: 262144 (bytes <= max_size)" '262144 "bytes <= max_size"' \
  "$(patch sglang 2 bfloat16 "custom allreduce size cap" '.measured | .value, .compare' | paste -sd' ')"
check_eq "vLLM's cap named with its source" 1 \
  "$(patch vllm 2 bfloat16 "custom allreduce size cap" '.why' | grep -c 'bytes < 8388608 (vllm/distributed/device_communicators/custom_all_reduce.py:74')"
check_eq "TP2: one-stage is what both pick by themselves at 2 GPUs: no algorithm variable" "{} {}" \
  "$(for e in vllm sglang; do grp $e 2 bfloat16 '.env | del(.NCCL_TUNER_PLUGIN, .ARBENCH_TUNER_FILE)'; done | paste -sd' ')"
# The fused kernel beat its unfused baselines to 128 KiB (16 tokens of its hidden 4096); neither engine has a
# fusion on compute capability 12.0.
check_eq "fusion measured to 128 KiB, 16 tokens, a patch on cc 12.0 for both" "131072 16 131072 131072" \
  "$(grp vllm 2 bfloat16 '.fusion | .fused_max_bytes, .fused_max_tokens' | paste -sd' ') $(patch vllm 2 bfloat16 "allreduce+RMSNorm fusion" '.measured.fused_max_bytes') $(patch sglang 2 bfloat16 "allreduce+RMSNorm fusion" '.measured.fused_max_bytes')"
check_eq "an engine path not measured is an option, never a setting" '"flashinfer-pcie-ipc" false' \
  "$(grp vllm 2 bfloat16 '.options[0] | .path, .measured' | paste -sd' ')"
# vLLM's FlashInfer PCIe-IPC path (PR #53576, merged after c81093757) needs a FlashInfer with #4393 and one node:
# the same TP 2 data from two nodes offers it no more (vLLM's wrapper turns itself off across nodes).
check_eq "the PCIe-IPC option: merged, the FlashInfer it needs, taken before custom allreduce" "1 1 1" \
  "$(grp vllm 2 bfloat16 '.options[0].source' | grep -c 'PR #53576, merged into vLLM main') $(grp vllm 2 bfloat16 '.options[0].applies' | grep -c 'needs a FlashInfer with PcieIpcAllReduceWorkspace (flashinfer-ai/flashinfer PR #4393, 299e6d11') $(grp vllm 2 bfloat16 '.options[0].applies' | grep -c 'vLLM tries it before its custom allreduce')"
jq -c 'if .nodes then .nodes = 2 | (if .hosts then .hosts = ["box", "box2"] else . end) else . end' "$TMP/main.jsonl" \
  >"$TMP/twonode.jsonl"
tune twonode "$TMP/twonode.jsonl" --hidden 4096 || check_fail "tune twonode exited $?"
check_eq "two nodes: no PCIe-IPC option, custom allreduce off across nodes" '2 [] 1' \
  "$(S="$TMP/twonode/serving.json" grp vllm 2 bfloat16 '.nodes, [.options[].path]' | paste -sd' ') $(S="$TMP/twonode/serving.json" grp vllm 2 bfloat16 .engine_runs | grep -c 'spanning nodes')"

# NCCL's symmetric-memory path: offered to try with the NCCL these runs loaded (2.28.9 runs symmetric kernels on an
# all-P2P node); not with 2.29.2 on the same PCIe box (symmetric kernels only when every pair is NVLink-connected).
check_eq "NCCL 2.28.9 on PCIe: NCCL symmetric memory offered (vLLM TP8, SGLang TP2), no nccl_symmetric" \
  '["VLLM_USE_NCCL_SYMM_MEM=1"] ["--enable-symm-mem"] null' \
  "$(grp vllm 8 bfloat16 '[.options[] | select(.path == "nccl-symmetric-memory") | .how]') $(grp sglang 2 bfloat16 '[.options[] | select(.path == "nccl-symmetric-memory") | .how]') $(grp vllm 8 bfloat16 .nccl_symmetric)"
jq -c 'if .type == "run" then .stack.nccl_loaded = "2.29.2" else . end' "$TMP/main.jsonl" >"$TMP/nccl2292.jsonl"
tune nccl2292 "$TMP/nccl2292.jsonl" --hidden 4096 || check_fail "tune nccl2292 exited $?"
for e in vllm sglang; do for r in 2 8; do
  check_eq "NCCL 2.29.2 on PCIe: $e TP$r: no NCCL symmetric-memory option, the group says why" \
    '[] false "2.29.2" 1' \
    "$(S="$TMP/nccl2292/serving.json" grp $e $r bfloat16 '[.options[] | select(.path == "nccl-symmetric-memory")], .nccl_symmetric.runs, .nccl_symmetric.nccl' | paste -sd' ') $(S="$TMP/nccl2292/serving.json" grp $e $r bfloat16 .nccl_symmetric.why | grep -c 'runs its symmetric kernels only when every GPU pair is NVLink-connected')"
done; done

# TP=2 half: NCCL wins everywhere: both engines get --disable-custom-all-reduce and nothing to patch.
for e in vllm sglang; do
  check_eq "$e TP2 half: custom off, the flag, no patch" 'false 0 ["--disable-custom-all-reduce"] 0' \
    "$(grp $e 2 half '.custom_allreduce, .custom_max_bytes, .flags, (.needs_patch | length)' | paste -sd' ')"
done
check_eq "the command lines carry it" '"vllm serve MODEL --tensor-parallel-size 2 --disable-custom-all-reduce" "python3 -m sglang.launch_server --model-path MODEL --tp-size 2 --disable-custom-all-reduce"' \
  "$(grp vllm 2 half .command) $(grp sglang 2 half .command)"

# TP=8 bfloat16: p2p-oneshot wins to 64 KiB, p2p-staged (no engine kernel) at 128K..256K: both engines turn custom
# allreduce off above 2 PCIe GPUs although it measured faster.
for e in vllm sglang; do
  check_eq "$e TP8: measured on, crossovers 256K (thresholds) and 64K (its kernels), no flag" 'true 262144 65536 []' \
    "$(grp $e 8 bfloat16 '.custom_allreduce, .custom_max_bytes, .engine_custom_max_bytes, .flags' | paste -sd' ')"
  check_eq "$e TP8: turned off above 2 PCIe GPUs, a patch" 1 \
    "$(patch $e 8 bfloat16 "custom allreduce turned off" '.why' | grep -c 'turns custom allreduce off above 2 GPUs without NVLink')"
done
check_eq "vLLM TP8: its PCIe opt-in is not in main (open PR #47979)" 1 \
  "$(patch vllm 8 bfloat16 "custom allreduce turned off" '.why' | grep -c 'no opt-in in main: VLLM_ALLOW_CUSTOM_ALLREDUCE_PCIE is only in open PR #47979')"
for e in vllm sglang; do
  check_eq "$e TP8: the patch says what was measured" "65536 8" \
    "$(patch $e 8 bfloat16 "custom allreduce turned off" '.measured | .custom_max_bytes, .custom_max_tokens' | paste -sd' ')"
  check_eq "$e TP8: NCCL at every size unpatched" 1 "$(grp $e 8 bfloat16 .engine_runs | grep -c '^"NCCL at every size')"
done
check_eq "TP8: the cap the engines' own kernels need: 64 KiB (not thresholds' 256K, won by p2p-staged)" "65537 65536" \
  "$(patch vllm 8 bfloat16 "custom allreduce size cap" .measured.value) $(patch sglang 8 bfloat16 "custom allreduce size cap" .measured.value)"
check_eq "TP8: p2p-staged has no engine path (its use range: from one byte above 64 KiB)" '"p2p-staged" 65537 262144' \
  "$(patch vllm 8 bfloat16 "no vLLM path for p2p-staged" '.measured | .config, .min_bytes, .max_bytes' | paste -sd' ')"
check_eq "SGLang TP8: MSCCL++ named as an option" '"--enable-mscclpp"' \
  "$(grp sglang 8 bfloat16 '.options[] | select(.path == "mscclpp") | .how')"

# One decision: every group's custom_max_bytes is thresholds.json's (the gpu group of the same ranks and dtype).
T="$TMP/main/thresholds.json"
check_eq "custom_max_bytes = thresholds.json's" \
  "$(jq -r '.groups[] | select(.family == "gpu") | "\(.ranks) \(.dtype) \(.custom_max_bytes)"' "$T" | sort | paste -sd';')" \
  "$(jq -r '.engines.vllm[] | "\(.ranks) \(.dtype) \(.custom_max_bytes)"' "$S" | sort | paste -sd';')"
check_eq "both engines, one crossover" "$(jq -c '[.engines.vllm[].custom_max_bytes]' "$S")" "$(jq -c '[.engines.sglang[].custom_max_bytes]' "$S")"

# The sizes NCCL keeps: tune's tuner.json through libarbench-tuner.so, the same file the plugin reads.
check_eq "NCCL deployed: the plugin and this tuner.json" "$(realpath "$TMP/main/tuner.json") tuner plugin" \
  "$(grp vllm 2 bfloat16 '.env.ARBENCH_TUNER_FILE, .nccl.deploy' | tr -d '"' | paste -sd' ')"

# The .sh files: sourced in an empty environment, each group exports exactly its env and prints its command line;
# every needs_patch entry is one note on stderr.
for e in vllm sglang; do
  for g in "2 bfloat16" "2 half" "8 bfloat16"; do
    set -- $g
    want=$(grp $e $1 $2 '.env | to_entries[] | "\(.key)=\(.value)"' | tr -d '"' | sort)
    got=$(cd "$TMP/main" && env -i bash -c "before=\$(env | sort); source ./$e.sh $1 $2 >$TMP/sh.out 2>$TMP/sh.err; \
          comm -13 <(echo \"\$before\") <(env | sort)")
    check_eq "$e.sh $g exports exactly the JSON's env" "$want" "$got"
    check_eq "$e.sh $g prints the command" "$(grp $e $1 $2 .command | tr -d '"')" "$(cat "$TMP/sh.out")"
    check_eq "$e.sh $g: one note per needs_patch" "$(grp $e $1 $2 '.needs_patch | length')" "$(grep -c 'needs a patch' "$TMP/sh.err")"
  done
  check_eq "$e.sh 8: one dtype at TP 8, none needed" "$(grp $e 8 bfloat16 .command | tr -d '"')" \
    "$(cd "$TMP/main" && bash -c "source ./$e.sh 8" 2>/dev/null)"
  check_eq "$e.sh 2: two dtypes at TP 2: return 2 naming the groups" "2 1" \
    "$(cd "$TMP/main" && bash -c "source ./$e.sh 2 2>$TMP/sh.err; echo \$?") $(grep -c 'groups: 2 bfloat16, 2 half, 8 bfloat16' "$TMP/sh.err")"
  check_eq "$e.sh run, not sourced: exit 2" 2 "$(bash "$TMP/main/$e.sh" 2 bfloat16 2>/dev/null; echo $?)"
done

# The folder is what goes to the serving box (issue 50 item 8): the plugin is copied beside the settings and the
# .sh files name it, and tuner.json, relative to where they lie: copied elsewhere with the original gone, sourced
# from another directory, they export the copy's files, which exist.
check_eq "the plugin beside the settings" "$(realpath "$TMP/main")/libarbench-tuner.so" \
  "$(grp vllm 2 bfloat16 '.env.NCCL_TUNER_PLUGIN' | tr -d '"')"
cmp -s "$TMP/main/libarbench-tuner.so" "$ARBENCH_BUILD/tuner/libarbench-tuner.so" \
  || check_fail "the copied plugin differs from the build's"
cp -r "$TMP/main" "$TMP/box" && rm -rf "$TMP/main.moved" && mv "$TMP/main" "$TMP/main.moved"
for e in vllm sglang; do
  got=$(cd / && env -i bash -c "source '$TMP/box/$e.sh' 2 bfloat16 >/dev/null 2>&1; echo \"\$NCCL_TUNER_PLUGIN \$ARBENCH_TUNER_FILE\"")
  check_eq "$e.sh from a copied folder: its own plugin and tuner.json" "$TMP/box/libarbench-tuner.so $TMP/box/tuner.json" "$got"
  check_eq "$e.sh from a copied folder: both exist" "1 1" "$(set -- $got; { [ -f "$1" ] && echo 1; [ -f "$2" ] && echo 1; } | paste -sd' ')"
done
mv "$TMP/main.moved" "$TMP/main"

# Without --hidden no tokens; --engines picks the files.
tune plain "$TMP/main.jsonl" --engines sglang || check_fail "tune --engines sglang exited $?"
check_eq "--engines sglang: one engine, its file only, tokens null" '["sglang"] null no' \
  "$(jq -c '(.engines | keys), .hidden' "$TMP/plain/serving.json" | paste -sd' ') $(test -e "$TMP/plain/vllm.sh" && echo yes || echo no)"
check_eq "no --hidden: custom_max_tokens null" "null" "$(jq -c '.engines.sglang[0].custom_max_tokens' "$TMP/plain/serving.json")"

# Fair baselines: the same box measured plain and with run --as sglang (SGLang's NCCL 1.2x slower): SGLang's group
# compares with its own NCCL (crossover 1 MiB), vLLM's with NCCL as arbench ran it (vLLM sets no NCCL variable).
tune as "$TMP/as.jsonl" || check_fail "tune as exited $?"
S="$TMP/as/serving.json"
check_eq "sglang: its own baseline, 1 MiB" '1048576 "sglang" ["nccl {as=sglang}"] true' \
  "$(grp sglang 2 bfloat16 '.custom_max_bytes, .baseline.as, .baseline.configs, .baseline.fair' | paste -sd' ')"
check_eq "vllm: plain NCCL is its own, 256 KiB" '262144 null true' \
  "$(grp vllm 2 bfloat16 '.custom_max_bytes, .baseline.as, .baseline.fair' | paste -sd' ')"
check_eq "thresholds.json: a group per as, the same values" "262144 -;1048576 sglang" \
  "$(jq -r '.groups[] | select(.family == "gpu") | "\(.custom_max_bytes) \(.as // "-")"' "$TMP/as/thresholds.json" | paste -sd';')"
# Measured only with --as vllm (vLLM's set is empty): vLLM's own baseline; SGLang's group takes them as NCCL as
# arbench runs it, not its own.
jq -c 'select(.as != "sglang") | if .type == "result" then .as = "vllm" else . end' "$TMP/as.jsonl" >"$TMP/vllmas.jsonl"
tune vllmas "$TMP/vllmas.jsonl" || check_fail "tune vllmas exited $?"
S="$TMP/vllmas/serving.json"
check_eq "--as vllm only: vLLM's own, SGLang's not" '"vllm" true 262144 "vllm" false 262144' \
  "$(grp vllm 2 bfloat16 '.baseline.as, .baseline.fair, .custom_max_bytes' | paste -sd' ') $(grp sglang 2 bfloat16 '.baseline.as, .baseline.fair, .custom_max_bytes' | paste -sd' ')"
S="$TMP/main/serving.json"
check_eq "SGLang without run --as: not its baseline, and how to measure it" 'false 1' \
  "$(grp sglang 2 bfloat16 '.baseline.fair') $(grp sglang 2 bfloat16 .baseline.note | grep -c 'arbench run --as sglang')"

# The engines pick one-stage at 2 GPUs by themselves: two-stage winning every custom size is one variable; a winner
# that changes with the size is a patch (their variable forces one kernel for every size).
tune kernels "$TMP/kernels.jsonl" || check_fail "tune kernels exited $?"
S="$TMP/kernels/serving.json"
check_eq "two-stage everywhere: the engines' variables" '"2stage" "2stage"' \
  "$(grp vllm 2 bfloat16 .env.VLLM_CUSTOM_ALLREDUCE_ALGO) $(grp sglang 2 bfloat16 .env.SGLANG_CUSTOM_ALLREDUCE_ALGO)"
check_eq "one-stage to 64K, two-stage to 512K: a patch, no variable" '[{"kernel":"custom-1stage","max_bytes":65536},{"kernel":"custom-2stage","max_bytes":524288}] null' \
  "$(patch vllm 2 half "size-dependent custom kernel cut-off" '[.measured.ranges[] | {kernel, max_bytes}]') $(grp vllm 2 half .env.VLLM_CUSTOM_ALLREDUCE_ALGO)"
check_eq "the .sh exports the variable" "2stage" \
  "$(cd "$TMP/kernels" && bash -c 'source ./sglang.sh 2 bfloat16 >/dev/null 2>&1; echo $SGLANG_CUSTOM_ALLREDUCE_ALGO')"
S="$TMP/main/serving.json"

# Stand-in records are never GPU numbers: tune leaves them out before deciding (one stderr line; issue 37), and
# with --standin kept for tune's tables serving still leaves them out, named, and the groups are the GPUs' alone
# (the stand-in's p2p-oneshot is 10x faster everywhere: included, it would move every crossover to 32 MiB).
tune mixed "$TMP/mixed.jsonl" || check_fail "tune mixed exited $?"
check_eq "mixed: stand-in left out by tune, groups unchanged" "262144 1" \
  "$(jq -c '.engines.vllm[0].custom_max_bytes' "$TMP/mixed/serving.json") $(grep -c 'left out 39 results of the CPU stand-in of CUDA' "$TMP/mixed.err")"
tune mixedkeep "$TMP/mixed.jsonl" --standin || check_fail "tune mixed --standin exited $?"
check_eq "mixed --standin: serving excludes the stand-in, groups unchanged" "262144 1" \
  "$(jq -c '.engines.vllm[0].custom_max_bytes' "$TMP/mixedkeep/serving.json") $(jq -c '[.excluded[] | select(.config | test("cuda-standin")) | .why | test("stand-in")] | unique | length' "$TMP/mixedkeep/serving.json")"
tune standin "$TMP/standin.jsonl"; check_eq "stand-in only: nothing to analyse, exit 3" 3 $?
tune standinkeep "$TMP/standin.jsonl" --standin; check_eq "stand-in only, --standin: exit 0" 0 $?
check_eq "stand-in only, --standin: no group, and why" '[] 1' \
  "$(jq -c '.engines.vllm' "$TMP/standinkeep/serving.json") $(jq -r .none "$TMP/standinkeep/serving.json" | grep -c 'CPU stand-in of CUDA')"
# Host-only results: serving.json says none and why, exit 0 with a note; the .sh files export nothing, return 1.
tune host "$TMP/host.jsonl"; check_eq "host only: exit 0" 0 $?
check_eq "host only: none, why, one note" '[] [] 1 1' \
  "$(jq -c '.engines.vllm, .engines.sglang' "$TMP/host/serving.json" | paste -sd' ') $(jq -r .none "$TMP/host/serving.json" | grep -c 'host backends only') $(grep -c '^arbench tune: note: serving.json: no GPU results' "$TMP/host.err")"
check_eq "host only: the .sh exports nothing, returns 1" "1 " \
  "$(cd "$TMP/host" && env -i bash -c 'b=$(env | sort); source ./vllm.sh 2 float 2>/dev/null; echo "$? $(comm -13 <(echo "$b") <(env | sort))"')"

# Bad input: one line, exit 2, nothing written.
check_bad "unknown engine" "unknown engine 'tgi' in --engines vllm,tgi (known: vllm, sglang)" \
  "$ARBENCH" tune "$TMP/main.jsonl" -o "$TMP/bad1" --engines vllm,tgi
check_bad "--hidden 0" "bad --hidden '0'" "$ARBENCH" tune "$TMP/main.jsonl" -o "$TMP/bad2" --hidden 0
check_bad "--hidden -5" "bad --hidden '-5'" "$ARBENCH" tune "$TMP/main.jsonl" -o "$TMP/bad3" --hidden -5
check_bad "a bf16 row of 8190 bytes" "--hidden 4095: a bfloat16 token row is 8190 bytes, not a multiple of 16" \
  "$ARBENCH" tune "$TMP/main.jsonl" -o "$TMP/bad4" --hidden 4095
check_eq "bad --hidden: nothing written" "" "$(ls "$TMP/bad4" 2>/dev/null)"
check_bad "--hidden without -o" "--hidden needs -o DIR" "$ARBENCH" tune "$TMP/main.jsonl" --hidden 4096
finish
