#!/usr/bin/env python3
"""A gate plan of the example problems (`atrex.examples` of the definitions) of
operators, for one submission set (an operator before it joins the suite).

  build/bin/atrex-roofline --ops suites/atrex-serve/ops --hw hw/gpus.json --gpu H200 \\
      --format=json > out/examples.json
  python3 bench/sets/plan-examples.py --roofline out/examples.json --set naive \\
      --ops softmax,embedding -o bench/sets/plan-examples-naive.json

Sources are relative to the plan (as `atrex suite plan` writes them); floor_s
is the problem's datasheet roofline (the impossibility floor), the settings
those of bench/sets/plan-suite-naive.json. An entry key that is no definition
symbol (mla_decode's S = MB*BS) is derived by the operator's `entry`
expression of the suite (suites/atrex-serve/suite.json, `operators`).
"""
import argparse
import ast
import json
import os
import sys


def evaluate(expr, names):
    """An entry expression (integers, names, + - * / % with floor division,
    parentheses), as atrex-suite evaluates it."""
    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in names:
                raise ValueError(f"'{n.id}' is no symbol of the example")
            return names[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.Div: lambda: a // b, ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b}
            if type(n.op) in ops:
                return ops[type(n.op)]()
        raise ValueError(f"unsupported expression '{expr}'")
    return ev(ast.parse(expr, mode="eval"))


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
    exprs = {o["name"]: o["entry"] for o in
             json.load(open("suites/atrex-serve/suite.json"))["operators"]}
    settings = json.load(open(a.settings))["settings"]
    out_dir = os.path.dirname(os.path.abspath(a.out))
    subs = []
    for op in a.ops.split(","):
        src = os.path.join("examples", "sets", a.set, op + ".cu")
        if not os.path.exists(src):
            sys.exit(f"plan-examples: {src}: no such file")
        def entry(shape):
            out = {}
            for k in keys[op]:
                if k in shape:
                    out[k] = shape[k]
                elif k in exprs.get(op, {}):
                    try:
                        out[k] = evaluate(exprs[op][k], shape)
                    except (ValueError, ZeroDivisionError) as e:
                        sys.exit(f"plan-examples: entry key '{k}' of '{op}': {e}")
                else:
                    sys.exit(f"plan-examples: entry key '{k}' of '{op}' is no definition symbol "
                             f"and the suite has no entry expression for it")
            return out
        probs = [{"id": f"{op}/{r['problem']}", "shape": entry(r["shape"]),
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
