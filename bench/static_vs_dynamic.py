#!/usr/bin/env python3
"""The static (atrex-lint) and dynamic (atrex-gate) verdicts of the gate
examples side by side, as a Markdown table.

    build/bin/atrex-lint --format=json examples/gate/*.cu > lint.json
    python3 bench/static_vs_dynamic.py lint.json RESULTS.jsonl [RESULTS.jsonl ...]

A submission missing from the results files shows "not run".
"""
import json
import os
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lint = json.load(open(sys.argv[1]))
    dyn = {}
    for path in sys.argv[2:]:
        for n, line in enumerate(open(path), 1):
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit("%s:%d: not a JSON line: %s" % (path, n, e))
            name = r["submission"]["name"]
            shape = ",".join("%s=%s" % kv for kv in sorted(r["problem"]["shape"].items()))
            dyn.setdefault(name, []).append("%s %s/%s" % (shape, r["status"], r["verdict"]))
    print("| submission | static verdict (atrex-lint) | static reasons | dynamic (atrex-gate): shape status/verdict |")
    print("|---|---|---|---|")
    for s in sorted(lint["submissions"], key=lambda s: s["path"]):
        name = os.path.splitext(os.path.basename(s["path"]))[0]
        reasons = "; ".join(s.get("reasons", []))
        if len(reasons) > 160:
            reasons = reasons[:157] + "..."
        print("| %s | %s | %s | %s |" % (name, s["verdict"], reasons.replace("|", "\\|"),
                                         "<br>".join(dyn.get(name, ["not run"]))))


if __name__ == "__main__":
    main()
