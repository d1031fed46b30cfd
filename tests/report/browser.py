#!/usr/bin/env python3
# browser.py — arbench report's pages in a real headless Chromium, driven over the DevTools protocol on a pipe
# (--remote-debugging-pipe: no port, no WebDriver, no download): no console error, the picks equal
# `arbench table --format json`'s, every chart drawn, every links pair shown, no horizontal overflow and a
# page that is not blank at 390 and 1280 px, readable in dark mode, no request that leaves the file.
"""usage: browser.py CHROMIUM OUTDIR PAGE.html:TABLE.json[:COMPARE] ...

TABLE.json is `arbench table --format json` of the page's files (what the page must show); COMPARE (optional)
the word compare when the page must hold the compare chart. Screenshots go to OUTDIR. One line per check,
ok: or FAIL:; exit 1 when any failed."""
import base64
import fcntl
import json
import os
import struct
import subprocess
import sys
import time
import zlib

FAILS = []


def check(name, ok, detail=""):
    if ok:
        print("ok: %s" % name)
    else:
        print("FAIL: %s%s" % (name, (": " + detail) if detail else ""))
        FAILS.append(name)


class Browser:
    """One headless Chromium; commands and events as JSON messages separated by NUL on fds 3 and 4."""

    def __init__(self, exe, profile, log):
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()
        # the child's fds 3 and 4: duplicated above 9 first so the dup2s cannot clobber each other
        hi_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
        hi_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)

        def child():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [exe, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio",
                "--user-data-dir=" + profile, "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=child,
                                     pass_fds=(3, 4))
        for fd in (to_chrome_r, from_chrome_w, hi_r, hi_w):
            os.close(fd)
        self.w = os.fdopen(to_chrome_w, "wb", buffering=0)
        self.r = os.fdopen(from_chrome_r, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = self.r.read(1 << 16)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.w.write(json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=60):
        deadline = time.time() + timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                del self.events[i]
                return m
        while True:
            m = self._read(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    def open_tab(self):
        t = self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.call("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for d in ("Page", "Runtime", "Log", "Network"):
            self.call(d + ".enable")

    def viewport(self, width, mobile, dark=False):
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": 900, "deviceScaleFactor": 1,
                                                         "mobile": mobile})
        self.call("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme",
                                                               "value": "dark" if dark else "light"}]})
        # Applied, not slept on: the page reports the new width, then two animation frames pass (a relayout and a
        # paint), however long a loaded box takes (issue 50 item 12: a fixed 0.2 s sleep did this before).
        deadline = time.time() + 60
        while self.js("window.innerWidth") != width:
            if time.time() > deadline:
                raise TimeoutError("the viewport never became %d px wide" % width)
            time.sleep(0.05)
        self.js("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))")

    def load(self, url):
        self.events = []
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        time.sleep(0.3)  # late console messages and requests
        self.call("Runtime.evaluate", {"expression": "1"})  # drain what arrived

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("page script failed: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def screenshot(self, path):
        data = base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])
        with open(path, "wb") as f:
            f.write(data)
        return data

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=10)
        except Exception:  # noqa: BLE001 - it is going away either way
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def png_pixels(data):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG, non-interlaced (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and inter == 0, "unexpected PNG format"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows, i = zlib.decompress(idat), w * bpp, bytearray(w * bpp), [], 0
    for _ in range(h):
        ft, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[k:k + 3]) for k in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def not_blank(data):
    """Distinct colours and the share of pixels unlike the most common one (the background)."""
    w, h, rows = png_pixels(data)
    counts = {}
    for row in rows[::3]:
        for px in row[::3]:
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    return w, h, len(counts), 1 - max(counts.values()) / total


def fmt_us(v):
    """ar_fmt_us (bench/analysis/analysis.c): how the page prints a time."""
    if v < 100:
        return "%.2f" % v
    if v < 10000:
        return "%.1f" % v
    return "%.0f" % v


def html_id(s):
    """ar_html_id (bench/page/html.c): lowercase alphanumerics, runs of others one dash."""
    out, dash = "", False
    for ch in s:
        if ch.isascii() and ch.isalnum():
            if dash and out:
                out += "-"
            out += ch.lower()
            dash = False
        else:
            dash = True
    return out


def expected_picks(grid):
    """Per size: (size, config index, p50) of table's pick: its per-size decision when the grid has decisions (a
    size without one has no pick), else the cell marked best (the two forms `table --format json` has had)."""
    cells = {(c["size"], c["config"]): c for c in grid["cells"]}
    decisions = {d["size"]: d for d in grid.get("decisions") or []}
    out = []
    for s in grid["sizes"]:
        if "decisions" in grid:
            k = decisions[s]["pick"] if s in decisions else None
        else:
            k = next((c["config"] for c in grid["cells"] if c["size"] == s and c["best"]), None)
        out.append((s, k, cells[(s, k)]["p50_us"] if k is not None and (s, k) in cells else None))
    return out


DOM = r"""(() => {
  const grids = [...document.querySelectorAll('article.grid')].map(a => ({id: a.id,
    rows: [...a.querySelectorAll('table.decide tbody tr')].map(tr => {
      const p = tr.querySelector('td.pick'), v = tr.querySelector('td.p50');
      return {size: +tr.dataset.size, config: p ? +p.dataset.config : null, label: p ? p.textContent : null,
              p50: v ? v.dataset.p50 : null, text: v ? v.textContent : null, title: v ? v.title : ''};
    })}));
  const figs = [...document.querySelectorAll('figure.chart')].map(f => {
    const s = f.querySelector('svg'), r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
    return {id: f.id, w: r.width, h: r.height, shapes: s ? s.querySelectorAll('path,use,rect,polygon,text').length : 0};
  });
  const heat = [...document.querySelectorAll('table.heat')].map(t => ({method: t.dataset.method,
    direction: t.dataset.direction, pairs: [...t.querySelectorAll('td.pair')].map(td => ({src: +td.dataset.src,
    dst: +td.dataset.dst, value: td.dataset.value, text: td.textContent,
    visible: td.getBoundingClientRect().width > 0}))}));
  const refs = [];
  document.querySelectorAll('[src],[href],[srcset],[action],[poster],[data]').forEach(e => {
    for (const a of ['src', 'href', 'srcset', 'action', 'poster', 'data', 'xlink:href'])
      if (e.hasAttribute(a)) refs.push(e.tagName.toLowerCase() + ' ' + a + '=' + e.getAttribute(a));
  });
  const styles = [...document.querySelectorAll('style')].map(s => s.textContent).join('\n');
  return {grids, figs, heat, refs, styles, scripts: document.scripts.length,
          links: document.querySelectorAll('link').length, frames: document.querySelectorAll('iframe,object,embed').length,
          sw: document.documentElement.scrollWidth, iw: window.innerWidth};
})()"""

FILTER = r"""(() => {
  const q = document.getElementById('filter'), want = %s, all = [...document.querySelectorAll('th[data-cfg]')];
  q.value = want; q.dispatchEvent(new Event('input'));
  const vis = e => !e.classList.contains('hidden') && getComputedStyle(e).display !== 'none';
  const shown = all.filter(vis), wrong = shown.filter(e => !e.dataset.cfg.includes(want)).length +
    all.filter(e => e.dataset.cfg.includes(want) && !vis(e)).length;
  const res = {shown: shown.length, hidden: all.length - shown.length, wrong,
               others: all.filter(e => !e.dataset.cfg.includes(want)).length};
  q.value = ''; q.dispatchEvent(new Event('input'));
  res.after = all.filter(e => !vis(e)).length;
  return res;
})()"""

CONTRAST = r"""(() => {
  const rgb = s => s.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
  const lum = c => { const v = c.map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
                     return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const cs = getComputedStyle(document.body), a = lum(rgb(cs.color)), b = lum(rgb(cs.backgroundColor));
  return {ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), bg: cs.backgroundColor};
})()"""


# Issue 51's layout rules, judged in the page as laid out: nothing in the answer section wider than the viewport,
# the verdict of every size in view; no <pre> over 40 lines open by default; no heading followed by an empty
# table (nor any table without a data cell); every chart's text at >= 9 px as rendered, or the chart's data table
# on the page (data-table names it).
LAYOUT = r"""(() => {
  const iw = window.innerWidth, vis = e => e.checkVisibility({contentVisibilityAuto: true, visibilityProperty: true});
  const ans = document.getElementById('answer'), wide = [], verdicts = {shown: 0, off: []};
  if (ans) for (const e of ans.querySelectorAll('*')) {
    if (!vis(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.width > iw + 0.5 || r.right > iw + 0.5 || r.left < -0.5)
      wide.push(e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined ? '.' + e.className : '') +
                ' ' + Math.round(r.left) + '..' + Math.round(r.right));
  }
  if (ans) for (const td of ans.querySelectorAll('table.decide td.verdict')) {
    const r = td.getBoundingClientRect();
    if (vis(td) && r.width > 0 && r.left >= 0 && r.right <= iw) verdicts.shown++;
    else verdicts.off.push(td.closest('tr').dataset.size);
  }
  const pres = [...document.querySelectorAll('pre')].filter(vis).map(p => p.textContent.split('\n').length)
    .filter(n => n > 40);
  const empty = [];
  for (const t of document.querySelectorAll('table')) {
    if (t.querySelector('td')) continue;
    let h = t.closest('.scroll') || t, prev = h.previousElementSibling;
    empty.push((prev ? prev.tagName.toLowerCase() + ' ' + prev.textContent.slice(0, 60) : '(no heading)') + ' -> ' +
               (t.className || 'table'));
  }
  const charts = [...document.querySelectorAll('figure.chart')].map(f => {
    let min = Infinity;
    for (const t of f.querySelectorAll('svg text')) {
      if (!t.textContent.trim() || !vis(t)) continue;
      const m = t.getScreenCTM(), fs = parseFloat(getComputedStyle(t).fontSize);
      if (!m || !fs) continue;
      min = Math.min(min, fs * Math.sqrt(m.a * m.a + m.b * m.b));
    }
    const tid = f.dataset.table, table = tid ? document.getElementById(tid) : null;
    return {id: f.id, min: min === Infinity ? null : min, table: tid || null,
            table_ok: !!(table && table.tagName === 'TABLE' && table.querySelector('td'))};
  });
  return {iw, wide, verdicts, pres, empty, charts, bytes: document.documentElement.outerHTML.length};
})()"""


def check_layout(br, name, width):
    """Issue 51's rules at one width (after the viewport is set)."""
    lay = br.js(LAYOUT)
    check("%s: the viewport is %d px (emulated)" % (name, width), lay["iw"] == width, "innerWidth %d" % lay["iw"])
    check("%s: nothing in the answer section wider than the %d px viewport" % (name, width), not lay["wide"],
          "; ".join(lay["wide"][:5]))
    check("%s: every size's verdict in view at %d px (%d shown)" % (name, width, lay["verdicts"]["shown"]),
          not lay["verdicts"]["off"], "sizes " + ", ".join(lay["verdicts"]["off"][:8]))
    check("%s: no <pre> over 40 lines open by default" % name, not lay["pres"], "lines: %s" % lay["pres"][:5])
    check("%s: no heading followed by an empty table (no table without a data cell)" % name, not lay["empty"],
          "; ".join(lay["empty"][:4]))
    small = ["%s: %.1f px, %s" % (c["id"], c["min"], "data table " + c["table"] + (" missing" if not c["table_ok"] else "")
                                  if c["table"] else "no data table") for c in lay["charts"]
             if c["min"] is not None and c["min"] < 9 and not c["table_ok"]]
    legible = sum(1 for c in lay["charts"] if c["min"] is None or c["min"] >= 9)
    check("%s: every chart's text >= 9 px at %d px or its data table on the page (%d of %d legible as drawn)"
          % (name, width, legible, len(lay["charts"])), not small, "; ".join(small[:4]))
    return lay


def console_errors(events):
    out = []
    for m in events:
        meth, p = m.get("method"), m.get("params", {})
        if meth == "Runtime.exceptionThrown":
            out.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
        elif meth == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console.%s: %s" % (p["type"], [a.get("value") for a in p.get("args", [])]))
        elif meth == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("log: %s" % p["entry"].get("text"))
    return out


def requests(events, page_url):
    return [m["params"]["request"]["url"] for m in events if m.get("method") == "Network.requestWillBeSent"
            and m["params"]["request"]["url"] != page_url and not m["params"]["request"]["url"].startswith("data:")]


def check_page(br, page, table, want_compare, outdir):
    name = os.path.basename(page)
    url = "file://" + os.path.abspath(page)
    br.viewport(1280, False)
    br.load(url)
    errs = console_errors(br.events)
    check("%s: no console error" % name, not errs, "; ".join(errs))
    ext = requests(br.events, url)
    check("%s: no request beyond the file (network log)" % name, not ext, ", ".join(ext[:5]))
    d = br.js(DOM)
    bad_refs = [r for r in d["refs"] if not (r.split("=", 1)[1].startswith("#") or r.split("=", 1)[1].startswith("data:"))]
    check("%s: every src/href is in the page" % name, not bad_refs, ", ".join(bad_refs[:5]))
    check("%s: no <link>, <iframe>, <object>, url() or @import" % name,
          d["links"] == 0 and d["frames"] == 0 and "url(" not in d["styles"] and "@import" not in d["styles"])
    # the picks equal table's, cell for cell
    grids = table.get("grids") or []
    byid = {g["id"]: g for g in d["grids"]}
    check("%s: one decision table per table grid (%d)" % (name, len(grids)), len(d["grids"]) == len(grids),
          "%d on the page" % len(d["grids"]))
    wrong = []
    for g in grids:
        gid = html_id("g %s %dr %s %s" % (g["dtype"], g["ranks"], g["placement"], g["op"]))
        rows = byid.get(gid, {}).get("rows", [])
        want = expected_picks(g)
        if len(rows) != len(want):
            wrong.append("%s: %d rows for %d sizes" % (gid, len(rows), len(want)))
            continue
        for row, (size, k, p50) in zip(rows, want):
            if row["size"] == size and row["config"] is None and k is None:
                continue  # nothing in play at this size, on the page and in the table
            if row["size"] != size or row["config"] != k or k is None:
                wrong.append("%s %d: pick %s, table %s" % (gid, size, row["config"], k))
            elif row["label"] != g["configs"][k]["label"]:
                wrong.append("%s %d: label %r, table %r" % (gid, size, row["label"], g["configs"][k]["label"]))
            elif float(row["p50"]) != p50 or row["text"] != fmt_us(p50):
                wrong.append("%s %d: p50 %s (%s), table %r" % (gid, size, row["p50"], row["text"], p50))
            elif "run" not in row["title"] or "p10-p90" not in row["title"]:
                wrong.append("%s %d: no runs and spread in the hover text" % (gid, size))
    check("%s: every pick and its p50 equal arbench table's (%d sizes)" % (name, sum(len(g["sizes"]) for g in grids)),
          not wrong, "; ".join(wrong[:4]))
    # every chart drawn: the latency and busbw of each grid, a best map per (dtype, placement), compare
    want = set()
    for g in grids:
        key = "%s_%dr_%s" % (g["dtype"], g["ranks"], g["placement"])
        want |= {"latency_" + key, "busbw_" + key, "best_map_%s_%s" % (g["dtype"], g["placement"])}
    if want_compare:
        want.add("compare")
    figs = {f["id"]: f for f in d["figs"]}
    missing = sorted(n for n in want if "fig-" + html_id(n) not in figs)
    check("%s: every chart is on the page (%d)" % (name, len(want)), not missing, ", ".join(missing))
    flat = [f["id"] for f in d["figs"] if f["w"] < 100 or f["h"] < 50 or f["shapes"] < 20]
    check("%s: every chart renders (non-zero size, drawn)" % name, not flat, ", ".join(flat))
    # the links heatmaps: every ordered pair of every matrix, with table's value
    mats = (table.get("links") or {}).get("matrices") or []
    check("%s: one heatmap per links matrix (%d)" % (name, len(mats)), len(d["heat"]) == len(mats))
    bad = []
    for m in mats:
        t = next((h for h in d["heat"] if h["method"] == m["method"] and h["direction"] == m["direction"]), None)
        pairs = {(p["src"], p["dst"]): p for p in (t or {}).get("pairs", [])}
        for s in range(m["n"]):
            for t2 in range(m["n"]):
                if s == t2:
                    continue
                p, v = pairs.get((s, t2)), m["values"][s][t2]
                if not p or not p["visible"]:
                    bad.append("%s %s %d->%d missing" % (m["method"], m["direction"], s, t2))
                elif v is None and p["text"] != "skipped":
                    bad.append("%s %s %d->%d not marked skipped" % (m["method"], m["direction"], s, t2))
                elif v is not None and (float(p["value"]) != v or not p["text"].startswith("%.2f" % v)):
                    bad.append("%s %s %d->%d shows %s, table %r" % (m["method"], m["direction"], s, t2, p["text"], v))
    if mats:
        check("%s: the heatmaps show every pair with table's value (%d pairs)" % (name, sum(m["n"] * (m["n"] - 1) for m in mats)),
              not bad, "; ".join(bad[:4]))
    # the configuration filter: a part of one label hides every other configuration's columns, and clearing it
    # shows them again
    if grids:
        f = br.js(FILTER % json.dumps(grids[0]["configs"][-1]["label"]))
        check("%s: the filter keeps %s's columns and hides the others (%d shown, %d hidden, then %d hidden)"
              % (name, grids[0]["configs"][-1]["label"], f["shown"], f["hidden"], f["after"]),
              f["shown"] > 0 and f["wrong"] == 0 and f["after"] == 0 and (f["hidden"] > 0) == (f["others"] > 0))
    # widths: not blank, nothing wider than the window
    stem = os.path.join(outdir, os.path.splitext(name)[0])
    for width, mobile in ((1280, False), (390, True)):
        br.viewport(width, mobile)
        sw, iw = br.js("[document.documentElement.scrollWidth, window.innerWidth]")
        check("%s: no horizontal overflow at %d px (scrollWidth %d)" % (name, width, sw), sw <= iw)
        check_layout(br, name, width)
        w, h, colours, ink = not_blank(br.screenshot("%s-%d.png" % (stem, width)))
        check("%s: the %d px screenshot is not blank (%d colours, %.0f%% ink)" % (name, width, colours, 100 * ink),
              w == width and colours >= 8 and ink >= 0.02)
    br.js("document.getElementById('answer') && document.getElementById('answer').scrollIntoView()")
    br.screenshot("%s-390-answer.png" % stem)
    for dark in (False, True):
        br.viewport(1280, False, dark)
        c = br.js(CONTRAST)
        check("%s: body text contrast %.1f:1 in %s mode (>= 7)" % (name, c["ratio"], "dark" if dark else "light"),
              c["ratio"] >= 7)
    br.js("document.getElementById('answer') && document.getElementById('answer').scrollIntoView()")
    br.screenshot("%s-1280-dark-answer.png" % stem)
    errs = console_errors(br.events)
    check("%s: still no console error after resizing" % name, not errs, "; ".join(errs))


def print_pdf(exe, page, outdir, profile, log):
    pdf = os.path.join(outdir, os.path.splitext(os.path.basename(page))[0] + ".pdf")
    subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
                    "--no-pdf-header-footer", "--print-to-pdf=" + pdf, "file://" + os.path.abspath(page)],
                   stdin=subprocess.DEVNULL, stdout=log, stderr=log, timeout=120)
    data = open(pdf, "rb").read() if os.path.exists(pdf) else b""
    check("%s: --print-to-pdf writes a PDF (%d bytes)" % (os.path.basename(page), len(data)),
          data[:5] == b"%PDF-" and len(data) > 10000)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    exe, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    log = open(os.path.join(outdir, "chromium.log"), "ab")
    br = Browser(exe, os.path.join(outdir, "profile"), log)
    try:
        br.open_tab()
        for spec in sys.argv[3:]:
            parts = spec.split(":")
            with open(parts[1], encoding="utf-8") as f:
                table = json.load(f)
            check_page(br, parts[0], table, len(parts) > 2 and parts[2] == "compare", outdir)
    finally:
        br.close()
    for spec in sys.argv[3:]:
        if os.environ.get("ARBENCH_REPORT_PDF", "1") != "0":  # report-browser-layout leaves printing to report-browser
            print_pdf(exe, spec.split(":")[0], outdir, os.path.join(outdir, "profile-pdf"), log)
    print("%d failed checks" % len(FAILS) if FAILS else "all passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
