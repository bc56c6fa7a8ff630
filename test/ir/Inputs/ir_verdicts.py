"""Compares atrex-lint's verdict on sources with its verdict on their IR."""
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys

corpus, compile_cmd, tmp = sys.argv[1], shlex.split(sys.argv[2]), sys.argv[3]
# Documented differences (docs/ir-and-plugins.md): (source, IR) verdicts.
KNOWN_LIMITS = {
    # A macro that renames a runtime function leaves no trace in IR.
    "evasion-timer-macro.cu": ("suspicious", "adopted"),
    # The overrides are not emitted in a unit that never constructs the
    # classes: IR sees an unresolvable virtual call.
    "vendor-virtual.cu": ("fallback", "suspicious"),
    # Thrust's containers are glue in source; their constructors' bodies
    # (thrust::uninitialized_fill, copies) are emitted into the unit and
    # read as Thrust algorithms in IR.
    "thrust-containers.cu": ("adopted", "fallback"),
}
os.makedirs(tmp, exist_ok=True)
sys.path.insert(0, os.path.join(corpus, "Inputs"))
from corpus import corpus_files  # noqa: E402

files = corpus_files(corpus, compilable=True)

# The corpus holds submissions: both sides judged as such.
src = subprocess.run(["atrex-lint", "--mode=submission", "--format=json", *files],
                     capture_output=True, text=True)
src_verdict = {s["path"]: s["verdict"]
               for s in json.loads(src.stdout)["submissions"]}


def to_ir(f):
    out = os.path.join(tmp, os.path.basename(f) + ".ll")
    r = subprocess.run(compile_cmd + ["-o", out, f], capture_output=True)
    return out if r.returncode == 0 else None


with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
    irs = dict(zip(files, pool.map(to_ir, files)))
ok = [f for f in files if irs[f]]
ir = subprocess.run(["atrex-lint", "--mode=submission", "--format=json",
                     *[irs[f] for f in ok]],
                    capture_output=True, text=True)
ir_verdict = dict(zip(ok, (s["verdict"] for s in
                           json.loads(ir.stdout)["submissions"])))
same = differ = 0
for f in ok:
    name = os.path.basename(f)
    if name in KNOWN_LIMITS:
        want = KNOWN_LIMITS[name]
        got = (src_verdict[f], ir_verdict[f])
        print(f"known limit {name}: source {got[0]}, IR {got[1]}"
              + ("" if got == want else f" (documented: {want})"))
        if got != want:
            differ += 1
        continue
    if src_verdict[f] == ir_verdict[f]:
        same += 1
    else:
        differ += 1
        print(f"{os.path.basename(f)}: source {src_verdict[f]}, "
              f"IR {ir_verdict[f]}")
print(f"same verdict: {same}/{same + differ}, differ: {differ}")
