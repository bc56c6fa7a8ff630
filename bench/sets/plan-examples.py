#!/usr/bin/env python3
"""A gate plan of the example problems (`atrex.examples` of the definitions) of
operators that are not (yet) in the default suite, for one submission set.

  build/bin/atrex-roofline --ops suites/atrex-serve/ops --hw hw/gpus.json --gpu H200 \\
      --format=json > out/examples.json
  python3 bench/sets/plan-examples.py --roofline out/examples.json --set naive \\
      --ops softmax,embedding -o bench/sets/plan-examples-naive.json

Sources are relative to the plan (as `atrex suite plan` writes them); floor_s
is the problem's datasheet roofline (the impossibility floor), the settings
those of bench/sets/plan-suite-naive.json.
"""
import argparse
import json
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--roofline", required=True, help="atrex-roofline --format=json output")
    ap.add_argument("--set", required=True, help="examples/sets/<SET>")
    ap.add_argument("--ops", required=True, help="comma-separated operators")
    ap.add_argument("--settings", default="bench/sets/plan-suite-naive.json")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    rows = json.load(open(a.roofline))
    # The entry's shape keys only (atrex-roofline's shape also has derived symbols).
    keys = {o["name"]: o["shape_keys"] for o in json.load(open("suites/atrex-serve/suite.specs.json"))}
    settings = json.load(open(a.settings))["settings"]
    out_dir = os.path.dirname(os.path.abspath(a.out))
    subs = []
    for op in a.ops.split(","):
        src = os.path.join("examples", "sets", a.set, op + ".cu")
        if not os.path.exists(src):
            sys.exit(f"plan-examples: {src}: no such file")
        if any(k not in r["shape"] for r in rows if r["operator"] == op for k in keys[op]):
            sys.exit(f"plan-examples: an entry key of '{op}' is not a definition symbol "
                     "(derived keys are not supported): leave it out")
        probs = [{"id": f"{op}/{r['problem']}", "shape": {k: r["shape"][k] for k in keys[op]},
                  "floor_s": r["t_roofline_datasheet_s"], "extra": {"phase": r["phase"]}}
                 for r in rows if r["operator"] == op]
        if not probs:
            sys.exit(f"plan-examples: no example of '{op}' in {a.roofline}")
        subs.append({"name": f"{a.set}/{op}", "operator": op, "lang": "cuda",
                     "source": os.path.relpath(os.path.abspath(src), out_dir),
                     "problems": probs})
    json.dump({"schema": "atrex-gate-plan/1", "settings": settings, "submissions": subs},
              open(a.out, "w"), indent=1, sort_keys=True)
    print(f"plan-examples: {sum(len(s['problems']) for s in subs)} problems of "
          f"{len(subs)} operators -> {a.out}")


if __name__ == "__main__":
    main()
