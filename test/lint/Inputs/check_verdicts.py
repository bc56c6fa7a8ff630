"""Lints a directory of examples and compares each verdict with EXPECTED."""
import json
import os
import subprocess
import sys

root = sys.argv[1]
expected = {}
with open(os.path.join(root, "EXPECTED")) as f:
    for line in f:
        if line.strip() and not line.startswith("#"):
            name, verdict = line.split()
            expected[name] = verdict
files = [os.path.join(root, n) for n in sorted(expected)]
# The examples are submissions (what a harness calls), whatever they
# define.
out = subprocess.run(["atrex-lint", "--mode=submission", "--format=json", *files],
                     capture_output=True, text=True)
report = json.loads(out.stdout)
good = 0
for sub in report["submissions"]:
    name = os.path.basename(sub["path"])
    if sub["verdict"] == expected[name]:
        good += 1
    else:
        print(f"{name}: got {sub['verdict']}, expected {expected[name]}: "
              f"{sub['reasons']}")
print(f"{len(expected)} examples, {good} as expected")
