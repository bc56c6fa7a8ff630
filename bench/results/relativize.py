#!/usr/bin/env python3
"""Rewrites the machine-specific absolute paths in committed device records as
paths relative to the repository: the checkout's root (/work/main on both the
workstation and the device machine) becomes "", the device tool's $OUT
(/root/out) and the main job's scratch output (/tmp/qs) become "out". Nothing
else changes (the device machine's torch under /opt/torch is kept: it is what
the compile command used there).

    python3 bench/results/relativize.py FILE...
"""
import sys

REWRITES = [("/work/main/", ""), ("/work/main", "."), ("/root/out/", "out/"), ("/root/out", "out"),
            ("/tmp/qs/", "out/")]

for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    new = text
    for old, rep in REWRITES:
        new = new.replace(old, rep)
    if new != text:
        open(path, "w", encoding="utf-8").write(new)
        print("relativized", path)
