#!/usr/bin/env python3
"""plan-suite-{naive,production}.json: each bundled set alone on all
problems of the default suite, cut from plan-suite.json (same settings, same
problems, the set's submissions in the same order). A set's wall time is that
of its own plan (issue 15: a 327-problem set in 300 s on one H200). Called by
make-plans.sh; runs alone too:  python3 bench/sets/split-suite-plan.py"""
import json
import os
import sys

d = os.path.dirname(os.path.abspath(__file__))
suite = json.load(open(os.path.join(d, "plan-suite.json")))
for s in ("naive", "production"):
    out = {k: v for k, v in suite.items() if k != "submissions"}
    out["submissions"] = [sub for sub in suite["submissions"] if sub["name"].split("/")[0] == s]
    units = sum(len(sub["problems"]) for sub in out["submissions"])
    if not out["submissions"]:
        sys.exit(f"split-suite-plan: no '{s}/...' submission in plan-suite.json")
    with open(os.path.join(d, f"plan-suite-{s}.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"plan-suite-{s}.json: {len(out['submissions'])} submissions, {units} units")
