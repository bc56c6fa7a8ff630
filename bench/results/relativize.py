#!/usr/bin/env python3
"""Rewrites the machine-specific absolute paths in committed device records as
paths relative to the repository: this checkout's root (and any other checkout
root given with --root, e.g. the device machine's) becomes "", and every
output directory given with --out (the device tool's $OUT, the main job's
scratch directory) becomes "out". Nothing else changes (the device machine's
torch installation is kept: it is what the compile command used there).

    python3 bench/results/relativize.py [--root DIR]... [--out DIR]... FILE...
"""
import argparse
import os

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--root", action="append", default=[], help="another checkout root")
ap.add_argument("--out", action="append", default=[], help="an output directory")
ap.add_argument("files", nargs="+")
args = ap.parse_args()

here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
rewrites = []
for root in [here] + args.root:
    root = root.rstrip("/")
    rewrites += [(root + "/", ""), (root, ".")]
for out in args.out:
    out = out.rstrip("/")
    rewrites += [(out + "/", "out/"), (out, "out")]

for path in args.files:
    text = open(path, encoding="utf-8").read()
    new = text
    for old, rep in rewrites:
        new = new.replace(old, rep)
    if new != text:
        open(path, "w", encoding="utf-8").write(new)
        print("relativized", path)
