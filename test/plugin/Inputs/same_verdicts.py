"""Compares atrex-lint's verdict with the clang plugin's on a corpus."""
import glob
import json
import os
import shlex
import subprocess
import sys

corpus, clang, tmp = sys.argv[1], shlex.split(sys.argv[2]), sys.argv[3]
os.makedirs(tmp, exist_ok=True)
same = differ = 0
for f in sorted(glob.glob(os.path.join(corpus, "*.cu"))):
    text = open(f).read()
    if "torch" in text or " -- " in text or "--entry" in text:
        continue  # needs torch headers or extra flags
    lint = subprocess.run(["atrex-lint", "--format=json", f],
                          capture_output=True, text=True)
    lv = json.loads(lint.stdout)["submissions"][0]["verdict"]
    out = os.path.join(tmp, os.path.basename(f) + ".json")
    if os.path.exists(out):
        os.remove(out)
    subprocess.run(clang + ["-fplugin-arg-atrex-json=" + out, "-fsyntax-only",
                            "-w", f], capture_output=True, text=True)
    if os.path.exists(out):
        pv = json.load(open(out))["submissions"][0]["verdict"]
    else:
        pv = "unknown"  # the compile failed before the plugin ran
    if lv == pv:
        same += 1
    else:
        differ += 1
        print(f"{os.path.basename(f)}: atrex-lint {lv}, plugin {pv}")
print(f"same verdict: {same}/{same + differ}, differ: {differ}")
