#!/usr/bin/env python3
"""Fails when a check, operator or gate-stage name is spelled in more than the
one source file that defines it (issue 16, "one place per concept").

The definers:
  checks     include/atrex/Lint/Checks.def (ATREX_CHECK / ATREX_RULE_CHECK)
  operators  suites/atrex-serve/ops/<operator>.mlir (the MLIR definition); the
             operator's implementation file runtime/lib/ops/<operator>.cpp is
             keyed by it (ATREX_REGISTER_OP, checked by OpRegistry.CoversEveryDefinition)
             and generated tables (OpTable.inc, *.specs.json) are derived from it
  stages     runtime/lib/support/Stages.cpp (each Stage's name(); a stage named by a
             protocol constant, `compile` and `memcheck`, is defined in Protocol.h with
             the result vocabulary, which scripts/check-vocabulary.py keeps)

Scanned (a test: test/lint/one-place.test): C++ and Python sources and TableGen under lib, passes, tools,
include, runtime (string literals, outside comments). Not scanned: tests,
docs, examples, suites' data files (suite.yaml, trace maps) and policy YAML
(data that refers to a name; the loaders check each reference against the
registry).

    python3 scripts/check-one-place.py [--root DIR] [--verbose]
"""
import argparse
import glob
import os
import re
import sys

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap.add_argument("--verbose", action="store_true")
args = ap.parse_args()
R = args.root


def rel(p):
    return os.path.relpath(p, R)


def sources():
    for d in ["lib", "passes", "tools", "include", "runtime"]:
        for dirpath, dirs, files in os.walk(os.path.join(R, d)):
            dirs[:] = [x for x in dirs if x != "test"]
            for f in files:
                if f.endswith((".cpp", ".h", ".def", ".td", ".py", ".cu")):
                    yield os.path.join(dirpath, f)


def code_of(path):
    """The file's text with // and # line comments and /* */ blocks removed."""
    text = open(path, encoding="utf-8", errors="replace").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = []
    py = path.endswith(".py")
    for line in text.split("\n"):
        # drop a trailing comment unless the marker is inside a string literal
        marker = "#" if py else "//"
        i, inq = 0, None
        while i < len(line):
            c = line[i]
            if inq:
                if c == "\\":
                    i += 2
                    continue
                if c == inq:
                    inq = None
            elif c in "\"'":
                inq = c
            elif line.startswith(marker, i):
                line = line[:i]
                break
            i += 1
        out.append(line)
    return "\n".join(out)


checks_def = os.path.join(R, "include", "atrex", "Lint", "Checks.def")
checks = re.findall(r'ATREX_(?:RULE_)?CHECK\(\s*\w+,\s*"([a-z0-9-]+)"', open(checks_def).read())
ops = sorted(os.path.splitext(os.path.basename(p))[0]
             for p in glob.glob(os.path.join(R, "suites", "atrex-serve", "ops", "*.mlir")))
stages_cpp = os.path.join(R, "runtime", "lib", "support", "Stages.cpp")
stages = re.findall(r'name\(\) const override \{ return "([a-z-]+)"; \}', open(stages_cpp).read())

concepts = [("check", n, rel(checks_def)) for n in checks]
concepts += [("operator", n, f"suites/atrex-serve/ops/{n}.mlir") for n in ops]
concepts += [("stage", n, rel(stages_cpp)) for n in stages]

codes = {rel(p): code_of(p) for p in sources()}
generated = {"runtime/lib/support/OpTable.inc"}
bad = 0
for kind, name, definer in concepts:
    lit = '"' + name + '"'
    where = sorted(f for f, c in codes.items() if lit in c and f != definer and f not in generated
                   and not (kind == "operator" and f == f"runtime/lib/ops/{name}.cpp"))
    if where:
        bad += 1
        print(f"{kind} {name} (defined in {definer}) also spelled in: {', '.join(where)}")
    elif args.verbose:
        print(f"{kind} {name}: only in {definer}")
print(f"check-one-place: {len(checks)} checks, {len(ops)} operators, {len(stages)} stages; "
      f"{bad} spelled outside their definer")
sys.exit(1 if bad else 0)
