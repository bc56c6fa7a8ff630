#!/usr/bin/env python3
"""Scaffold a new atrex-lint check: its registry line, its code, its lit test and its doc page.

A check is registered in one line of include/atrex/Lint/Checks.def (name, implied verdict, default
severity, modes, summary; docs/contributing.md, "Adding a check"). There are two kinds:

  rule   a list of symbols in the policy (`check: NAME` on rules of lib/Lint/DefaultPolicy.yaml):
         RuleCheck reports every reached call a rule matches as "call to 'f' <phrase>".
         Written: the Checks.def line, a starter rule in DefaultPolicy.yaml, the test, the doc page.
  class  a class of its own under lib/Lint/Checks/ (a LintCheck with run(CheckContext &)).
         Written: the Checks.def line, lib/Lint/Checks/<Name>Check.cpp, its factory declaration in
         include/atrex/Lint/Check.h, its source line in lib/Lint/CMakeLists.txt, the test, the doc page.

The lit test is written failing on purpose: it expects a finding that nothing reports until the
check is implemented (class) or its rule lists the symbols (rule). Replace its example with a real
positive and an honest look-alike negative.

  scripts/add-check.py atrex-evasion-example --kind class --implies suspicious \\
      --severity warning --modes S --summary "what it finds, in one line"
  scripts/add-check.py atrex-delegation-example --kind rule --implies fallback \\
      --severity warning --modes S,P,L --summary "..." --phrase "delegates compute to" \\
      --symbols 'examplelib*' --library ExampleLib

--root DIR works on another checkout (the scaffolder's own test uses a copy); --dry-run prints
what would be written.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

VERDICTS = {"adopted": "Adopted", "fallback": "Fallback", "no-kernel": "NoKernel",
            "suspicious": "Suspicious"}
SEVERITIES = {"note": "Note", "warning": "Warning", "error": "Error"}
MODE_NAMES = {"S": "submission", "P": "program", "L": "library"}


def fail(msg: str) -> None:
    print(f"add-check: error: {msg}", file=sys.stderr)
    sys.exit(1)


def camel(name: str) -> str:
    stem = name.removeprefix("atrex-")
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[-_]", stem) if p)


def c_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def wrap_call(head: str, args: list[str], indent: int) -> str:
    """`HEAD(a, b, ...)` wrapped at 80 columns with continuation lines aligned after '('."""
    lines, cur = [], head + "("
    pad = " " * indent
    for i, a in enumerate(args):
        piece = a + (", " if i + 1 < len(args) else ")")
        if len(cur) + len(piece.rstrip()) > 80 and cur.strip() != head + "(":
            lines.append(cur.rstrip())
            cur = pad
        cur += piece
    lines.append(cur.rstrip())
    return "\n".join(lines) + "\n"


class Plan:
    def __init__(self, root: Path, dry: bool):
        self.root, self.dry, self.writes = root, dry, []

    def read(self, rel: str) -> str:
        p = self.root / rel
        if not p.exists():
            fail(f"{p}: not found (is --root an atrex checkout?)")
        return p.read_text()

    def write(self, rel: str, text: str, new: bool) -> None:
        p = self.root / rel
        if new and p.exists():
            fail(f"{p}: already exists")
        self.writes.append((rel, text, new))

    def commit(self) -> None:
        for rel, text, new in self.writes:
            print(f"{'create' if new else 'update'} {rel}")
            if not self.dry:
                p = self.root / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name", help="check name, atrex-<family>-<what> (lower case, dashes)")
    ap.add_argument("--kind", choices=["rule", "class"], required=True)
    ap.add_argument("--implies", choices=sorted(VERDICTS), required=True)
    ap.add_argument("--severity", choices=sorted(SEVERITIES), default="warning")
    ap.add_argument("--modes", default="S", help="comma list of S, P, L (default S)")
    ap.add_argument("--summary", required=True, help="one line: --list-checks and SARIF")
    ap.add_argument("--phrase", help="rule checks: the message after \"call to 'f'\"")
    ap.add_argument("--symbols", default="", help="rule checks: comma list of globs for the starter rule")
    ap.add_argument("--library", default="", help="rule checks: library name for the starter rule")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()

    if not re.fullmatch(r"atrex-[a-z0-9]+(-[a-z0-9]+)+", a.name):
        fail(f"'{a.name}': a check name is 'atrex-' and lower-case words joined by '-'")
    modes = [m.strip().upper() for m in a.modes.split(",") if m.strip()]
    if not modes or any(m not in MODE_NAMES for m in modes):
        fail(f"--modes '{a.modes}': a comma list of S, P, L")
    if a.kind == "rule" and not a.phrase:
        fail("--kind rule needs --phrase (what the finding says after \"call to 'f'\")")
    if a.kind == "class" and (a.phrase or a.symbols):
        fail("--phrase and --symbols are for rule checks")

    plan = Plan(Path(a.root), a.dry_run)
    defs = plan.read("include/atrex/Lint/Checks.def")
    if c_string(a.name) in defs:
        fail(f"'{a.name}' is already registered in include/atrex/Lint/Checks.def")
    cls = camel(a.name) + "Check"
    factory = f"create{cls}"
    mode_expr = " | ".join(modes)
    common = [camel(a.name), c_string(a.name), VERDICTS[a.implies], SEVERITIES[a.severity], mode_expr]
    if a.kind == "rule":
        line = wrap_call("ATREX_RULE_CHECK", common + [c_string(a.summary), c_string(a.phrase)], 17)
    else:
        line = wrap_call("ATREX_CHECK", common + [c_string(a.summary), factory], 12)
    marker = "\n#undef ATREX_RULE_CHECK"
    if marker not in defs:
        fail("include/atrex/Lint/Checks.def: no '#undef ATREX_RULE_CHECK' to insert before")
    plan.write("include/atrex/Lint/Checks.def", defs.replace(marker, line + marker, 1), False)

    ext = "cu"
    test_rel = f"test/lint/{a.name.removeprefix('atrex-')}.{ext}"
    mode_words = ", ".join(f"`{MODE_NAMES[m]}`" for m in modes)
    if a.kind == "class":
        plan.write(f"lib/Lint/Checks/{cls}.cpp", f"""//===- {cls}.cpp - {a.name} {'-' * max(3, 62 - len(cls) - len(a.name))}===//
//
// {a.summary}
// (docs/checks/{a.name}.md).
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {{
class {cls} : public LintCheck {{
public:
  StringRef name() const override {{ return checks::{camel(a.name)}; }}

  void run(CheckContext &Ctx) override {{
    // Walk what the entry reaches (Ctx.Sites: every site with the function
    // holding it; Ctx.Reachable: the functions) and report with
    // Ctx.report(Finding): Check, Pos, Symbol, Message, CallPath.
    for (const ReachedSite &RS : Ctx.Sites) {{
      (void)RS;
    }}
  }}
}};
}} // namespace

std::unique_ptr<LintCheck> atrex::lint::{factory}() {{
  return std::make_unique<{cls}>();
}}
""", True)
        check_h = plan.read("include/atrex/Lint/Check.h")
        decls = list(re.finditer(r"std::unique_ptr<LintCheck> create\w+\(\);\n", check_h))
        if not decls:
            fail("include/atrex/Lint/Check.h: no factory declarations found")
        at = decls[-1].end()
        plan.write("include/atrex/Lint/Check.h",
                   check_h[:at] + f"std::unique_ptr<LintCheck> {factory}();\n" + check_h[at:], False)
        cmake = plan.read("lib/Lint/CMakeLists.txt")
        srcs = list(re.finditer(r"^  Checks/\w+\.cpp\n", cmake, re.M))
        if not srcs:
            fail("lib/Lint/CMakeLists.txt: no 'Checks/*.cpp' source lines found")
        names = sorted([m.group(0) for m in srcs] + [f"  Checks/{cls}.cpp\n"])
        start, end = srcs[0].start(), srcs[-1].end()
        plan.write("lib/Lint/CMakeLists.txt", cmake[:start] + "".join(names) + cmake[end:], False)
    else:
        pol = plan.read("lib/Lint/DefaultPolicy.yaml")
        syms = [s.strip() for s in a.symbols.split(",") if s.strip()]
        if syms:
            rule = (f"  - id: {a.name.removeprefix('atrex-')}\n"
                    f"    action: {'delegate' if a.implies == 'fallback' else 'evasion' if a.implies == 'suspicious' else 'allow'}\n"
                    f"    check: {a.name}\n"
                    + (f"    library: {a.library}\n" if a.library else "")
                    + f"    symbols: [{', '.join(repr(s) for s in syms)}]\n")
            plan.write("lib/Lint/DefaultPolicy.yaml", pol.rstrip("\n") + "\n" + rule, False)

    fn = "scaffold_example"
    plan.write(test_rel, f"""// RUN: not atrex-lint --no-snippets --mode=submission %s 2>&1 | FileCheck %s
//
// {a.name}: {a.summary}.
// Written by scripts/add-check.py and failing until the check reports: replace
// this example with a positive case from a real shape and an honest
// look-alike that must stay clean (docs/contributing.md, "Adding a check").
#include <cuda_runtime.h>

__global__ void k(float *x) {{ x[threadIdx.x] = 0; }}

void {fn}(float *x) {{
  k<<<1, 32>>>(x);
  // CHECK: :[[@LINE+1]]:3: {a.severity}: {{{{.*}}}} [{a.name}]
  /* the code {a.name} must find */;
}}
// CHECK: verdict: {a.implies}
""", True)
    plan.write(f"docs/checks/{a.name}.md", f"""# `{a.name}`

Default severity: `{a.severity}`.
Verdict it implies: `{a.implies}`{' (notes never change the verdict)' if a.severity == 'note' else ''}.
Modes: {mode_words}.

## What it finds

{a.summary[:1].upper() + a.summary[1:]}.

## Why it matters

(Which harness or benchmark it protects, and the public incident or pattern it comes from.)

## Example

`{test_rel}`.

## Not reported

(The honest look-alikes, each with its test.)
""", True)
    plan.commit()
    if not a.dry_run:
        print(f"next: implement it, make {test_rel} a real positive and negative test, "
              f"fill docs/checks/{a.name}.md, rebuild, run lit on test/lint")


if __name__ == "__main__":
    main()
