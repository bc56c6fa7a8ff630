#!/usr/bin/env python3
"""Fails when a gate status or verdict is spelled as a string literal outside
the one header that defines them (runtime/include/atrex-rt/Protocol.h).

Scans the gate (runtime/lib, runtime/tools, runtime/include), the scorer and the agent loop
(lib/Score, lib/Agent, tools/atrex-agent) for comparisons, assignments and returns of the literals
"pass", "fail", "error", "adopted", "fallback", "no-kernel", "suspicious",
"unknown" (JSON keys such as set("error", ...) are field names, not values,
and are not matched). Tests and docs are not scanned.

    python3 scripts/check-vocabulary.py [--root DIR]
"""
import argparse
import os
import re
import sys

WORDS = "pass|fail|error|adopted|fallback|no-kernel|suspicious|unknown"
VALUE = re.compile(r'(?:[=!]=\s*|(?<![=!<>])=\s*|return\s+|\?\s*|:\s*)"(' + WORDS + r')"(?!\s*:)')
DIRS = ["runtime/lib", "runtime/tools", "runtime/include", "lib/Score", "lib/Agent", "include/atrex/Agent", "tools/atrex-agent"]
DEFINER = os.path.join("runtime", "include", "atrex-rt", "Protocol.h")

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
args = ap.parse_args()

bad = []
for d in DIRS:
    for dirpath, _, files in os.walk(os.path.join(args.root, d)):
        for f in sorted(files):
            if not f.endswith((".cpp", ".h", ".inc")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, args.root)
            if rel == DEFINER:
                continue
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                code = line.split("//", 1)[0]
                for m in VALUE.finditer(code):
                    bad.append(f"{rel}:{n}: \"{m.group(1)}\" spelled here; use atrex::rt::protocol ({DEFINER})")
for b in bad:
    print(b)
print(f"check-vocabulary: {len(bad)} literal(s) outside {DEFINER}")
sys.exit(1 if bad else 0)
