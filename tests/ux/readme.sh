#!/usr/bin/env bash
# readme.sh — the README's first steps (issue 42, item 2): a CPU-box block and a GPU-box block, both on the first
# screen, every command with its expected duration, and every arbench command line in them valid for this
# build (run and sweep options through the run parser with sweep --dry-run, other commands through --help, the
# model example run).
source "$(dirname "$0")/../lib/common.sh"
ar_counting
"$PY" - "$ARBENCH_SRC/README.md" >"$TMP/cmds" <<'PY' || check_fail "README first steps"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
lines = text.split("\n")
def block(title):
    """The sh block after the paragraph starting with title: its commands, continuation lines joined."""
    at = next((i for i, l in enumerate(lines) if l.startswith(title)), None)
    if at is None or at > 60:
        sys.exit("no '%s' paragraph on the first screen (60 lines): at %s" % (title, at))
    start = next(i for i in range(at, len(lines)) if lines[i].startswith("```sh"))
    cmds, cur = [], ""
    for l in lines[start + 1:]:
        if l.startswith("```"):
            break
        cur += l.rstrip()
        if cur.endswith("\\"):
            cur = cur[:-1] + " "
            continue
        cmds.append(re.sub(r"\s+", " ", cur))
        cur = ""
    return cmds
bad = 0
for title, kind in (("**On a CPU box**", "cpu"), ("**On a GPU box**", "gpu")):
    cmds = block(title)
    if len(cmds) < 5:
        sys.exit("%s: only %d commands" % (title, len(cmds)))
    for c in cmds:
        cmd, _, comment = c.partition(" # ")
        if not re.match(r"\s*(~\d+ (s|min)|<1 s|a few minutes)\b", comment):
            print("FAIL: %s: no duration in: %s" % (kind, c), file=sys.stderr)
            bad += 1
        print("%s\t%s" % (kind, cmd.strip()))
sys.exit(1 if bad else 0)
PY
check_eq "commands found" 1 "$([ "$(wc -l <"$TMP/cmds")" -ge 10 ] && echo 1 || echo 0)"
while IFS=$'\t' read -r kind cmd; do
  read -r -a w <<<"$cmd"
  case ${w[0]} in
    scripts/run.sh|tests/gpu/device-check.sh) [ -x "$ARBENCH_SRC/${w[0]}" ] && echo "ok: $kind: ${w[0]} exists" || check_fail "${w[0]} missing"; continue ;;
    plots/arbench-plot) "$ARBENCH_SRC/plots/arbench-plot" --help >/dev/null 2>&1; check_eq "$kind: arbench-plot --help" 0 $?; continue ;;
    build/arbench) ;;
    *) check_fail "$kind: unknown command ${w[0]}"; continue ;;
  esac
  sub=${w[1]} args=("${w[@]:2}") keep=() np=2
  for ((i = 0; i < ${#args[@]}; i++)); do # -J and --np are the sweep's own; the rest are what is checked
    case ${args[i]} in -J|--np) [ "${args[i]}" = --np ] && np=${args[i + 1]}; i=$((i + 1)) ;; *) keep+=("${args[i]}") ;; esac
  done
  case $sub in
    run) "$ARBENCH" sweep --dry-run --np "$np" -J "$TMP/r.jsonl" -- "${keep[@]}" >/dev/null 2>"$TMP/err" ;;
    sweep) "$ARBENCH" sweep --dry-run --np "$np" -J "$TMP/s.jsonl" "${keep[@]}" >/dev/null 2>"$TMP/err" ;;
    model) (cd "$ARBENCH_SRC" && "$ARBENCH" "$sub" "${keep[@]}") >/dev/null 2>"$TMP/err" ;;
    list|topo) "$ARBENCH" "$sub" "${keep[@]}" >/dev/null 2>"$TMP/err" ;;
    *) "$ARBENCH" "$sub" "${keep[@]}" --help >/dev/null 2>"$TMP/err" ;;
  esac
  rc=$?
  check_eq "$kind: arbench $sub ${keep[*]:0:6}...: valid here" 0 "$rc"
  [ "$rc" = 0 ] || cat "$TMP/err"
done <"$TMP/cmds"
finish
