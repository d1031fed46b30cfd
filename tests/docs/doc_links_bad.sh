#!/usr/bin/env bash
# doc_links_bad.sh — doc_links.py itself: on a scratch tree with planted bad links (a missing file, a missing
# heading, a link to a heading of another file) it names each one and fails; links in code are not links.
set -u
CHECK=$(dirname "$0")/doc_links.py
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T/docs"
cat >"$T/README.md" <<'MD'
# Top
[ok](docs/a.md) [ok2](docs/a.md#the-b-section-2) [bad file](docs/nope.md) [bad anchor](docs/a.md#nowhere)
[self](#top) [web](https://example.com/x.md) `[code](docs/nope2.md)`
MD
cat >"$T/HACKING.md" <<'MD'
# H
```
[in a block](missing.md)
```
MD
cat >"$T/docs/a.md" <<'MD'
# A
## The `b` section: 2
[back](../README.md#top) [up-bad](../README.md#h)
MD
out=$(python3 "$CHECK" "$T"); rc=$?
want="README.md: link to docs/nope.md: no such file docs/nope.md
README.md: link to docs/a.md#nowhere: no heading #nowhere in docs/a.md
docs/a.md: link to ../README.md#h: no heading #h in README.md
doc-links: 3 broken link(s)"
[ $rc = 1 ] && [ "$out" = "$want" ] || { echo "FAIL: exit $rc, output:"; echo "$out"; echo "--- want:"; echo "$want"; exit 1; }
echo "doc_links_bad: ok"
