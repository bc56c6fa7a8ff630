"""Compares atrex-lint's verdict with the clang plugin's on a corpus."""
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys

corpus, clang, tmp = sys.argv[1], shlex.split(sys.argv[2]), sys.argv[3]
os.makedirs(tmp, exist_ok=True)
sys.path.insert(0, os.path.join(corpus, "Inputs"))
from corpus import corpus_files  # noqa: E402

files = corpus_files(corpus, compilable=False)

lint = subprocess.run(["atrex-lint", "--format=json", *files],
                      capture_output=True, text=True)
lint_verdicts = {s["path"]: s["verdict"]
                 for s in json.loads(lint.stdout)["submissions"]}


def plugin_verdict(f):
    out = os.path.join(tmp, os.path.basename(f) + ".json")
    if os.path.exists(out):
        os.remove(out)
    subprocess.run(clang + ["-fplugin-arg-atrex-json=" + out,
                            "-fplugin-arg-atrex-mode=auto", "-fsyntax-only",
                            "-w", f], capture_output=True, text=True)
    if not os.path.exists(out):
        return "unknown"  # the compile failed before the plugin ran
    return json.load(open(out))["submissions"][0]["verdict"]


with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
    plugin = dict(zip(files, pool.map(plugin_verdict, files)))
same = differ = 0
for f in files:
    if lint_verdicts[f] == plugin[f]:
        same += 1
    else:
        differ += 1
        print(f"{os.path.basename(f)}: atrex-lint {lint_verdicts[f]}, "
              f"plugin {plugin[f]}")
print(f"same verdict: {same}/{same + differ}, differ: {differ}")
