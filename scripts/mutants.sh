#!/usr/bin/env bash
# mutants.sh — the project's mutation check: plants each bug listed in tests/mutants/*.tsv, one at a
# time, in a scratch copy of the tree, rebuilds incrementally, runs the tests named to catch it.
set -euo pipefail
usage() {
  cat <<'EOF'
usage: scripts/mutants.sh [--only ID[,ID...]] [--file TSV] [--scratch DIR] [--no-baseline] [--list] [--check BUILD]
Reads every tests/mutants/*.tsv (or only --file TSV): one planted bug per line, TAB-separated,
  id  file  search  replace  tests
(# starts a comment; search and replace may use \t \n \\; search must occur exactly once in file;
tests: comma-separated meson test names, at least one of which must fail on the mutant; a leading
'asan:' runs them in a second scratch build with -Db_sanitize=address,undefined, for bugs only a
sanitizer sees, such as a leak or an undefined cast; a leading 'emu:' in a scratch build with
-Dcuda-emu=true, for bugs of the GPU host code that only the CPU stand-ins of CUDA and NCCL run; 'emunv:' in a
scratch build with -Dcuda-emu=true -Dcuda-emu-nvcc=false -Dcuda-archs=90,120, the stand-in without nvcc, for bugs of
the paths only it runs: NVRTC's cubins through rtc.c and the driver API stand-in).
The working tree (tracked and untracked, not ignored files) is copied to a scratch directory with
one build directory kept there between runs (one more for asan:, one for emu:, one for emunv:), so each mutant is an
incremental build. First the named
tests run once on the unmutated copy (--no-baseline skips that); then per mutant: apply, ninja, run
its tests, record caught or survived, revert. Ends with 'N caught, N survived'; exit status 1 when
any mutant survived or could not be applied or built, 2 on bad usage or a bad entry.
  --only ID[,ID...]  run only these entries
  --file TSV         read only this list (a path)
  --scratch DIR      scratch directory (default: $TMPDIR or /tmp, arbench-mutants.UID/NAME-HASH)
  --no-baseline      do not run the tests on the unmutated copy first
  --list             print the entries and exit
  --check BUILD      plant nothing: check that every entry still applies (its file exists, its search
                     occurs once there, each test is one of BUILD's or of a tests/*/meson.build); one line
                     per stale entry, exit 1 when any (the unit-mutant_lists test)
EOF
}
die() { echo "mutants.sh: $*" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ONLY="" FILE="" SCRATCH="" BASELINE=1 LIST=0 CHECK=""
while [ $# -gt 0 ]; do
  case $1 in
    --only) [ $# -ge 2 ] || die "--only needs an id"; ONLY=$2; shift 2 ;;
    --file) [ $# -ge 2 ] || die "--file needs a path"; FILE=$2; shift 2 ;;
    --scratch) [ $# -ge 2 ] || die "--scratch needs a directory"; SCRATCH=$2; shift 2 ;;
    --no-baseline) BASELINE=0; shift ;;
    --list) LIST=1; shift ;;
    --check) [ $# -ge 2 ] || die "--check needs a build directory"; CHECK=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (allowed: --only ID, --file TSV, --scratch DIR, --no-baseline, --list, --check BUILD)" ;;
  esac
done
if [ -n "$FILE" ]; then
  [ -f "$FILE" ] || die "--file '$FILE': no such file"
  LISTS=("$(cd "$(dirname "$FILE")" && pwd)/$(basename "$FILE")")
else
  shopt -s nullglob
  LISTS=("$ROOT"/tests/mutants/*.tsv)
  [ ${#LISTS[@]} -gt 0 ] || die "no tests/mutants/*.tsv in $ROOT"
fi
[ -n "$SCRATCH" ] || SCRATCH="${TMPDIR:-/tmp}/arbench-mutants.$(id -u)/$(basename "$ROOT")-$(printf %s "$ROOT" | cksum | cut -d' ' -f1)"
mkdir -p "$SCRATCH"
SCRATCH=$(cd "$SCRATCH" && pwd)
TREE=$SCRATCH/tree
HELPER=$SCRATCH/mutants_helper.py

# The parts that need exact string handling are Python: parsing the lists, syncing the copy, applying.
cat >"$HELPER" <<'PY'
import os, sys

def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in "tn\\":
            out.append({"t": "\t", "n": "\n", "\\": "\\"}[s[i + 1]])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)

def entries(lists, root, only):
    """Yield (id, file, search, replace, tests, where); exit 2 on a malformed line or duplicate id."""
    seen, rows = {}, []
    for path in lists:
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            f = line.split("\t")
            shown = os.path.relpath(path, root) if os.path.abspath(path).startswith(root + os.sep) else path
            where = "%s:%d" % (shown, n)
            if len(f) != 5 or not all(f[i] for i in (0, 1, 2, 4)):
                sys.exit("mutants.sh: %s: expected 5 TAB-separated fields id, file, search, replace, tests "
                         "(only replace may be empty), got %d" % (where, len(f)))
            if f[0] in seen:
                sys.exit("mutants.sh: %s: id '%s' already used at %s" % (where, f[0], seen[f[0]]))
            seen[f[0]] = where
            rows.append((f[0], f[1], f[2], f[3], f[4], where))
    if only:
        want = only.split(",")
        missing = [w for w in want if w not in seen]
        if missing:
            sys.exit("mutants.sh: --only: no entry named %s (known: %s)" % (", ".join(missing), ", ".join(seen)))
        rows = [r for r in rows if r[0] in want]
    return rows

def cmd_list(lists, root, only):
    for r in entries(lists, root, only):
        print("\t".join(r[:2] + (r[4], r[5])))

def cmd_sync(root, tree, names):
    """Make tree hold exactly the listed files of root; rewrite only what differs (fresh mtime)."""
    keep = set()
    for rel in open(names, "rb").read().split(b"\0"):
        if not rel:
            continue
        rel = rel.decode()
        src, dst = os.path.join(root, rel), os.path.join(tree, rel)
        if os.path.islink(src):
            keep.add(rel)
            target = os.readlink(src)
            if not (os.path.islink(dst) and os.readlink(dst) == target):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                if os.path.lexists(dst):
                    os.remove(dst)
                os.symlink(target, dst)
            continue
        if not os.path.isfile(src):
            continue
        keep.add(rel)
        data = open(src, "rb").read()
        if os.path.isfile(dst) and open(dst, "rb").read() == data:
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        open(dst, "wb").write(data)
        os.chmod(dst, os.stat(src).st_mode & 0o777)
    for d, subdirs, files in os.walk(tree):
        rel_d = os.path.relpath(d, tree)
        if rel_d == ".":
            subdirs[:] = [s for s in subdirs if s not in ("build", "build-asan", "build-emu", "build-emu-nonvcc")]
        for fn in files:
            rel = os.path.normpath(os.path.join(rel_d, fn))
            if rel not in keep:
                os.remove(os.path.join(d, fn))

def cmd_check(lists, root, build):
    """Every entry still applies; names of tests from the build and from every tests/*/meson.build (another
    build may define some: an ASan build has no TSan tests). Exit 1 with one line per stale entry."""
    import glob, json, re
    names = {t["name"] for t in json.load(open(os.path.join(build, "meson-info", "intro-tests.json")))}
    for mb in glob.glob(os.path.join(root, "tests", "*", "meson.build")):
        names |= set(re.findall(r"test\('([A-Za-z0-9_-]+)'", open(mb, encoding="utf-8").read()))
    rows, bad = entries(lists, root, ""), []
    for ident, rel, search, _, tests, where in rows:
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            bad.append("%s: %s: no such file %s" % (where, ident, rel))
            continue
        n = open(path, encoding="utf-8").read().count(unescape(search))
        if n != 1:
            bad.append("%s: %s: the search text occurs %d times in %s (must be once)" % (where, ident, n, rel))
        for t in tests.split(","):
            t = t.split(":", 1)[1] if t.startswith(("asan:", "emu:", "emunv:")) else t
            if t not in names:
                bad.append("%s: %s: no test named %s" % (where, ident, t))
    for b in bad:
        print("mutants.sh: " + b)
    print("%d planted bugs, %d stale" % (len(rows), len(bad)))
    sys.exit(1 if bad else 0)

def cmd_apply(lists, root, tree, ident, backup):
    r = [e for e in entries(lists, root, ident) if e[0] == ident][0]
    path = os.path.join(tree, r[1])
    if not os.path.isfile(path):
        sys.exit("mutants.sh: %s: %s: file '%s' does not exist" % (r[5], ident, r[1]))
    text = open(path, encoding="utf-8").read()
    search, replace = unescape(r[2]), unescape(r[3])
    n = text.count(search)
    if n != 1:
        sys.exit("mutants.sh: %s: %s: search string occurs %d times in %s (must be exactly once): %r"
                 % (r[5], ident, n, r[1], search))
    open(backup, "w", encoding="utf-8").write(path + "\n")
    open(backup + ".orig", "w", encoding="utf-8").write(text)
    open(path, "w", encoding="utf-8").write(text.replace(search, replace))

def cmd_revert(backup):
    if not os.path.exists(backup):
        return
    path = open(backup, encoding="utf-8").read().rstrip("\n")
    open(path, "w", encoding="utf-8").write(open(backup + ".orig", encoding="utf-8").read())
    os.remove(backup + ".orig")
    os.remove(backup)

cmd = sys.argv[1]
if cmd == "list":
    cmd_list(sys.argv[4:], sys.argv[2], sys.argv[3])
elif cmd == "sync":
    cmd_sync(sys.argv[2], sys.argv[3], sys.argv[4])
elif cmd == "apply":
    cmd_apply(sys.argv[6:], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
elif cmd == "revert":
    cmd_revert(sys.argv[2])
elif cmd == "check":
    cmd_check(sys.argv[4:], sys.argv[2], sys.argv[3])
PY
PY=${PYTHON:-python3}
if [ -n "$CHECK" ]; then
  [ -f "$CHECK/meson-info/intro-tests.json" ] || die "--check '$CHECK': not a meson build directory"
  exec "$PY" "$HELPER" check "$ROOT" "$CHECK" "${LISTS[@]}"
fi
ENTRIES=$("$PY" "$HELPER" list "$ROOT" "$ONLY" "${LISTS[@]}") || exit 2
[ -n "$ENTRIES" ] || die "no entries in ${LISTS[*]}"
if [ "$LIST" = 1 ]; then printf '%s\n' "$ENTRIES"; exit 0; fi

BACKUP=$SCRATCH/applied
"$PY" "$HELPER" revert "$BACKUP" # a run that was killed mid-mutant left its file changed
trap '"$PY" "$HELPER" revert "$BACKUP"' EXIT

echo "mutants: scratch copy of $ROOT in $TREE"
mkdir -p "$TREE" "$SCRATCH/logs"
git -C "$ROOT" ls-files -z -co --exclude-standard >"$SCRATCH/files"
"$PY" "$HELPER" sync "$ROOT" "$TREE" "$SCRATCH/files"
# The tests find ../shared next to the source tree (real topologies): point the copy at the same one.
[ -e "$ROOT/../shared" ] && [ ! -e "$SCRATCH/shared" ] && ln -s "$(cd "$ROOT/../shared" && pwd)" "$SCRATCH/shared"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# setup_build DIR [MESON ARGS...]: configure (once) and build the unmutated copy in $TREE/DIR.
setup_build() {
  local dir=$1; shift
  if [ ! -f "$TREE/$dir/build.ninja" ]; then
    (cd "$TREE" && meson setup "$dir" "$@" >"$SCRATCH/logs/setup-$dir.log" 2>&1) ||
      { cat "$SCRATCH/logs/setup-$dir.log"; die "meson setup failed in $TREE/$dir"; }
  fi
  ninja -C "$TREE/$dir" >"$SCRATCH/logs/build-$dir.log" 2>&1 ||
    { tail -30 "$SCRATCH/logs/build-$dir.log"; die "the unmutated copy does not build in $dir"; }
}
# where_of TESTS: the build an entry's tests run in (asan: -> build-asan, emu: -> build-emu) and the test names alone.
where_of() {
  case $1 in
    asan:*) BDIR=build-asan TNAMES=${1#asan:} MULT=3 ;;
    emu:*) BDIR=build-emu TNAMES=${1#emu:} MULT=1 ;;
    emunv:*) BDIR=build-emu-nonvcc TNAMES=${1#emunv:} MULT=1 ;;
    *) BDIR=build TNAMES=$1 MULT=1 ;;
  esac
}
# Only the builds the entries ask for: the default one, the sanitizer build of the CI step (one CUDA arch keeps it
# quick), the CPU stand-in of CUDA.
# MUTANTS_MESON_OPTS: the default build's options (e.g. -Dcuda=disabled, or -Dcuda-archs=120: a list whose tests
# rebuild no CUDA kernel need not compile them for every arch; a scratch build keeps the options it was made with).
# shellcheck disable=SC2086 # a list of options
grep -qvP '\t(asan|emu|emunv):' <<<"$ENTRIES" && setup_build build ${MUTANTS_MESON_OPTS:-}
grep -qP '\tasan:' <<<"$ENTRIES" && setup_build build-asan -Db_sanitize=address,undefined -Dcuda-archs=120
grep -qP '\temu:' <<<"$ENTRIES" && setup_build build-emu -Dcuda-emu=true
grep -qP '\temunv:' <<<"$ENTRIES" && setup_build build-emu-nonvcc -Dcuda-emu=true -Dcuda-emu-nvcc=false -Dcuda-archs=90,120

known() { meson test -C "$TREE/$1" --list --no-rebuild 2>/dev/null | sed -n 's/^[^:]*:[^/]* \/ //p'; }
declare -A KNOWN TESTS
while IFS=$'\t' read -r id file tests where; do
  where_of "$tests"
  [ -n "${KNOWN[$BDIR]+x}" ] || KNOWN[$BDIR]=$(known "$BDIR")
  IFS=, read -ra ts <<<"$TNAMES"
  for t in "${ts[@]}"; do
    grep -qxF "$t" <<<"${KNOWN[$BDIR]}" || die "$where: $id: no meson test named '$t' in $BDIR (see meson test -C $BDIR --list)"
    [[ " ${TESTS[$BDIR]:-} " == *" $t "* ]] || TESTS[$BDIR]="${TESTS[$BDIR]:-} $t"
  done
done <<<"$ENTRIES"

# baseline DIR MULT TESTS...: the named tests pass on the unmutated copy, or nothing can be concluded.
baseline() {
  local dir=$1 mult=$2; shift 2
  [ $# -gt 0 ] || return 0
  echo "mutants: baseline ($dir): $*"
  meson test -C "$TREE/$dir" --no-rebuild --print-errorlogs --timeout-multiplier "$mult" "$@" >"$SCRATCH/logs/baseline-$dir.log" 2>&1 \
    || { grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|ERROR)' "$SCRATCH/logs/baseline-$dir.log" || true
         die "the named tests fail on the unmutated copy (log: $SCRATCH/logs/baseline-$dir.log)"; }
}
if [ "$BASELINE" = 1 ]; then
  for d in build build-asan build-emu build-emu-nonvcc; do
    read -ra ts <<<"${TESTS[$d]:-}"
    baseline "$d" "$([ $d = build-asan ] && echo 3 || echo 1)" "${ts[@]}"
  done
fi

caught=0 survived=0 broken=0
SURVIVORS=()
while IFS=$'\t' read -r id file tests where; do
  log=$SCRATCH/logs/$id.log
  "$PY" "$HELPER" apply "$ROOT" "$TREE" "$id" "$BACKUP" "${LISTS[@]}" 2>"$log" </dev/null || {
    cat "$log" >&2; broken=$((broken + 1)); SURVIVORS+=("$id (not applied)"); continue; }
  t0=$SECONDS
  where_of "$tests"
  if ! ninja -C "$TREE/$BDIR" >>"$log" 2>&1 </dev/null; then
    verdict="BROKEN (does not build; see $log)"; broken=$((broken + 1)); SURVIVORS+=("$id (does not build)")
  else
    IFS=, read -ra ts <<<"$TNAMES"
    if meson test -C "$TREE/$BDIR" --no-rebuild --print-errorlogs --timeout-multiplier "$MULT" "${ts[@]}" >>"$log" 2>&1 </dev/null; then
      verdict="SURVIVED ($tests all passed; log: $log)"; survived=$((survived + 1)); SURVIVORS+=("$id")
    else
      failed=$(sed -nE 's@^ *[0-9]+/[0-9]+ [^ ]+ / ([^ ]+) +(FAIL|TIMEOUT|ERROR) .*@\1@p' "$log" | sort -u | paste -sd, || true)
      verdict="caught by ${failed:-$tests}"; caught=$((caught + 1))
      ! grep -Eq '^ *[0-9]+/[0-9]+ .* TIMEOUT ' "$log" || verdict="$verdict (timed out: check $log)"
    fi
  fi
  "$PY" "$HELPER" revert "$BACKUP" </dev/null
  printf '%-32s %-44s %4ss  %s\n' "$id" "$file" $((SECONDS - t0)) "$verdict"
done <<<"$ENTRIES"
for d in build build-asan build-emu build-emu-nonvcc; do # leave the copies built unmutated for the next run
  [ ! -f "$TREE/$d/build.ninja" ] || ninja -C "$TREE/$d" >/dev/null 2>&1 || true
done
[ ${#SURVIVORS[@]} -eq 0 ] || echo "not caught: ${SURVIVORS[*]}"
echo "$caught caught, $survived survived$([ "$broken" = 0 ] || echo ", $broken not applied or not built")"
[ "$survived" = 0 ] && [ "$broken" = 0 ]
