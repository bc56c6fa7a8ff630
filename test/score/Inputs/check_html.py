#!/usr/bin/env python3
"""Checks an atrex-score HTML report in headless Chromium.

  check_html.py CHROMIUM REPORT.html [--expect-color NAME=#rrggbb ...]
                [--expect-points N] [--inject-error]
  check_html.py --static REPORT.html      # step 1 only, no browser

1. The page is self-contained: no external scripts, stylesheets, images,
   frames or fonts (only the SVG namespace URI and in-page #fragments).
2. `chromium --dump-dom`: the page's script ran (`data-atrex-ready="1"` on
   <body>) and recorded no error (`data-atrex-errors="0"` on <html>); the
   plot area's rectangle and point count are read from the DOM.
3. `chromium --screenshot`: the PNG (decoded here with zlib) has, inside the
   plot area, pixels of every expected colour (the verdict colours of the
   points).

--inject-error adds a failing script to a copy of the page and expects the
page's error collector to report it (so a broken page cannot pass step 2).
Prints one line per finding; exits 1 on the first failed check.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

WINDOW = (1280, 1000)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def chromium(exe, args, page, profile):
    cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu",
           "--hide-scrollbars", "--force-device-scale-factor=1",
           "--window-size=%d,%d" % WINDOW, "--user-data-dir=" + profile,
           "--no-first-run", "--disable-extensions",
           "--virtual-time-budget=5000"] + args + ["file://" + page]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if r.returncode != 0:
        fail("chromium exited %d: %s" % (r.returncode, r.stderr[-2000:]))
    return r.stdout


def check_self_contained(html):
    for pat, what in [(r"<\s*link\b", "<link>"),
                      (r"<\s*(img|iframe|embed|object|audio|video)\b", "embedded resource element"),
                      (r"\bsrc\s*=", "src attribute"),
                      (r"@import", "CSS @import"),
                      (r"\bhref\s*=\s*[\"'](?!#)", "href to another document"),
                      (r"url\(\s*[\"']?(?!#)", "CSS url() of a resource")]:
        m = re.search(pat, html, re.I)
        if m:
            fail("not self-contained: %s at offset %d: %r" %
                 (what, m.start(), html[max(0, m.start() - 40):m.end() + 40]))
    for m in re.finditer(r"(https?:)?//[A-Za-z0-9.-]+\.[a-z]{2,}[^\s\"'<>]*", html):
        if m.group(0) != "http://www.w3.org/2000/svg":
            fail("not self-contained: URL %r" % m.group(0))
    print("self-contained: ok")


def decode_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("screenshot is not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("unsupported PNG (depth %d, colour type %d, interlace %d)" %
             (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        elif f != 0:
            fail("bad PNG filter %d" % f)
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        fail("usage: check_html.py CHROMIUM REPORT.html [options]")
    exe, page = args[0], os.path.abspath(args[1])
    if exe == "--static":
        check_self_contained(open(page, encoding="utf-8").read())
        return
    colors, points, inject = {}, None, False
    i = 2
    while i < len(args):
        if args[i] == "--expect-color":
            name, hexc = args[i + 1].split("=")
            colors[name] = bytes.fromhex(hexc.lstrip("#"))
            i += 2
        elif args[i] == "--expect-points":
            points = int(args[i + 1])
            i += 2
        elif args[i] == "--inject-error":
            inject = True
            i += 1
        else:
            fail("unknown option " + args[i])

    html = open(page, encoding="utf-8").read()
    work = tempfile.mkdtemp(prefix="atrex-html-")
    try:
        profile = os.path.join(work, "profile")
        if inject:
            page = os.path.join(work, "broken.html")
            open(page, "w", encoding="utf-8").write(html.replace(
                "</body>", "<script>atrexNoSuchFunction();</script></body>"))
            dom = chromium(exe, ["--dump-dom"], page, profile)
            m = re.search(r'data-atrex-errors="(\d+)"', dom)
            if not m or m.group(1) == "0":
                fail("the injected error was not recorded")
            err = re.search(r'<pre id="atrex-errors">([^<]*)</pre>', dom)
            print("injected error recorded: %s" % (err.group(1) if err else "?"))
            return

        check_self_contained(html)
        dom = chromium(exe, ["--dump-dom"], page, profile)
        errs = re.search(r'data-atrex-errors="(\d+)"', dom)
        if not errs or errs.group(1) != "0":
            text = re.search(r'<pre id="atrex-errors">([^<]*)</pre>', dom)
            fail("script errors: %s" % (text.group(1) if text else "(marker missing)"))
        if 'data-atrex-ready="1"' not in dom:
            fail("the page's script did not finish (no data-atrex-ready)")
        print("loaded without script errors: ok")
        rect = re.search(r'data-plot-rect="(\d+),(\d+),(\d+),(\d+)"', dom)
        if not rect:
            fail("no data-plot-rect")
        x0, y0, w, h = map(int, rect.groups())
        n = int(re.search(r'data-points="(\d+)"', dom).group(1))
        print("plot area %dx%d, %d points" % (w, h, n))
        if points is not None and n != points:
            fail("expected %d points, the page has %d" % (points, n))

        png = os.path.join(work, "shot.png")
        chromium(exe, ["--screenshot=" + png], page, profile)
        W, H, bpp, rows = decode_png(png)
        if x0 + w > W or y0 + h > H:
            fail("plot area %s outside the %dx%d screenshot" % (rect.groups(), W, H))
        counts = {name: 0 for name in colors}
        background = 0
        for y in range(y0 + 2, y0 + h - 2):
            row = rows[y]
            for x in range(x0 + 2, x0 + w - 2):
                px = row[x * bpp:x * bpp + 3]
                if px == b"\xff\xff\xff":
                    background += 1
                    continue
                for name, c in colors.items():
                    if px == c:
                        counts[name] += 1
        total = (w - 4) * (h - 4)
        print("plot area: %.1f%% background" % (100.0 * background / total))
        if background == total:
            fail("the plot area is empty")
        for name, c in sorted(colors.items()):
            print("%s #%s: %d pixels" % (name, c.hex(), counts[name]))
            if counts[name] < 20:
                fail("no %s point (#%s) in the plot area of the screenshot" %
                     (name, c.hex()))
        print("screenshot shows the plot: ok")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
