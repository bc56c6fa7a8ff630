#!/usr/bin/env python3
"""Lint the FlyDSL corpus (corpus/*.py) and compare with labels.yaml.

  bench/flydsl/run.py [--lint build/bin/atrex-lint] [--out report.md]

Each file is linted as a user would: `atrex-lint --format=json <file>`. Prints per-file
results, the accuracy, honest files flagged (adopted/no-kernel labelled, fallback/suspicious
found) and delegations missed. Exit status 1 when a label is not met. Python 3, PyYAML.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
HONEST = {"adopted", "no-kernel"}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lint", default=str(ROOT / "build/bin/atrex-lint"))
    ap.add_argument("--out", help="write a markdown report here")
    a = ap.parse_args()
    labels = yaml.safe_load((HERE / "labels.yaml").read_text())["files"]
    listed = {e["file"] for e in labels}
    on_disk = {p.name for p in (HERE / "corpus").glob("*.py")}
    if listed != on_disk:
        print(f"labels.yaml and corpus/ differ: unlabelled {sorted(on_disk - listed)}, "
              f"missing {sorted(listed - on_disk)}", file=sys.stderr)
        return 2
    rows, right, honest_flagged, missed = [], 0, 0, 0
    for e in labels:
        path = HERE / "corpus" / e["file"]
        r = subprocess.run([a.lint, "--format=json", str(path)], capture_output=True, text=True)
        try:
            res = json.loads(r.stdout)["submissions"][0]
            got = res["verdict"]
        except (ValueError, KeyError, IndexError):
            got, res = "unknown", {}
        ok = got == e["expected"]
        right += ok
        if e["expected"] in HONEST and got in ("fallback", "suspicious"):
            honest_flagged += 1
        if e["expected"] in ("fallback", "suspicious") and got in HONEST | {"unknown"}:
            missed += 1
        rows.append((e["file"], e["expected"], got, "ok" if ok else "WRONG"))
    n = len(labels)
    lines = ["| file | expected | atrex-lint | |", "|---|---|---|---|"]
    lines += [f"| {f} | {x} | {g} | {s} |" for f, x, g, s in rows]
    lines += ["", f"{right}/{n} right ({100.0 * right / n:.1f}%), {honest_flagged} honest file(s) "
              f"flagged, {missed} delegation(s) missed"]
    text = "\n".join(lines)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n")
    return 0 if right == n else 1


if __name__ == "__main__":
    sys.exit(main())
