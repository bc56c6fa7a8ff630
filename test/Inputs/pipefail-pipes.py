#!/usr/bin/env python3
"""Lists the pipes into an early-closing reader (head, grep -q, grep -m) in
shell scripts that set pipefail: once the writer's output outgrows the pipe
buffer it dies of SIGPIPE and, under pipefail, so does the pipeline (exit 141,
and `set -e` ends the script). Usage: pipefail-pipes.py FILE_OR_DIR..."""
import os
import re
import sys

early = re.compile(r"\|\s*(head\b|grep\s+(-\w*[qm]\w*)\b)")
files = []
for a in sys.argv[1:]:
    if os.path.isdir(a):
        files += sorted(os.path.join(a, f) for f in os.listdir(a) if f.endswith(".sh"))
    else:
        files.append(a)
checked = bad = 0
for f in files:
    lines = open(f, encoding="utf-8").read().split("\n")
    if not any(re.search(r"\bset\s+-\w+\s+pipefail", l) for l in lines):  # -o, -euo, ...
        continue
    checked += 1
    for n, l in enumerate(lines, 1):
        code = l.split("#", 1)[0]  # comments never count
        if early.search(code):
            print(f"{f}:{n}: pipe into an early-closing reader under pipefail: {l.strip()}")
            bad += 1
print(f"checked {checked} scripts with pipefail, {bad} early-closing pipes")
sys.exit(1 if bad else 0)
