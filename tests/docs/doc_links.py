#!/usr/bin/env python3
# doc_links.py — every relative link in README.md, HACKING.md and docs/*.md resolves: the file exists
# and a #anchor names a heading of it (GitHub's slugs). Links inside code blocks and spans are not links.
import os, re, sys, glob, unicodedata

def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', s)  # a link in a heading: its text
    s = ''.join(c for c in s if c in ' -_' or unicodedata.category(c)[0] in 'LN')
    return s.replace(' ', '-')

def strip_code(text):
    text = re.sub(r'^(```|~~~).*?^\1[^\n]*$', '', text, flags=re.S | re.M)
    return re.sub(r'`[^`\n]*`', '', text)

def anchors(path):
    seen, out = {}, set()
    text = re.sub(r'^(```|~~~).*?^\1[^\n]*$', '', open(path, encoding='utf-8').read(), flags=re.S | re.M)
    for m in re.finditer(r'^#{1,6}\s+(.*?)\s*#*\s*$', text, flags=re.M):
        s = slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f'{s}-{n}')
    return out

def check(root, path):
    bad = []
    text = strip_code(open(path, encoding='utf-8').read())
    for m in re.finditer(r'\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)', text):
        target = m.group(1)
        if re.match(r'^[a-z][a-z0-9+.-]*:', target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        rel = os.path.relpath(path, root)
        if not os.path.exists(dest):
            bad.append(f'{rel}: link to {target}: no such file {os.path.relpath(dest, root)}')
        elif anchor and (not dest.endswith('.md') or anchor not in anchors(dest)):
            bad.append(f'{rel}: link to {target}: no heading #{anchor} in {os.path.relpath(dest, root)}')
    return bad

def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.environ['ARBENCH_SRC']
    files = [os.path.join(root, f) for f in ('README.md', 'HACKING.md')]
    files += sorted(glob.glob(os.path.join(root, 'docs', '*.md')))
    missing = [f for f in files[:2] if not os.path.exists(f)]
    if missing:
        print('doc-links: missing ' + ', '.join(missing))
        return 1
    bad = [b for f in files for b in check(root, f)]
    for b in bad:
        print(b)
    if bad:
        print(f'doc-links: {len(bad)} broken link(s)')
        return 1
    print(f'doc-links: ok ({len(files)} files)')
    return 0

if __name__ == '__main__':
    sys.exit(main())
