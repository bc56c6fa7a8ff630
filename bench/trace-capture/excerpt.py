#!/usr/bin/env python3
"""Cut a small, self-consistent excerpt out of a (slim) Kineto trace for tests.

    python3 excerpt.py TRACE.json[.gz] ANNOTATION_PREFIX KERNELS OUT.json

Keeps the first user annotation whose name starts with ANNOTATION_PREFIX
(CPU and GPU ranges), its first KERNELS kernel launches with the kernels they
started, the CPU ops that start before the last of those launches inside the
annotation, and the metadata.
"""
import gzip
import json
import sys


def main():
    src, prefix, nk, dst = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    with (gzip.open if src.endswith(".gz") else open)(src, "rt") as f:
        d = json.load(f)
    ev = d["traceEvents"]
    ann = next(e for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith(prefix))
    t0 = ann["ts"]
    kcorr = {e["args"]["correlation"] for e in ev if e.get("cat") == "kernel"}
    starts = sorted(e["ts"] for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")
                    and e["args"].get("correlation") in kcorr and t0 <= e["ts"] <= t0 + ann["dur"])
    t1 = starts[min(nk, len(starts)) - 1]
    keep, corr = [], set()
    for e in ev:
        if e.get("cat") in ("cpu_op", "cuda_runtime", "cuda_driver") and t0 <= e["ts"] <= t1:
            keep.append(e)
            if e.get("args", {}).get("correlation") in kcorr:
                corr.add(e["args"]["correlation"])
    for e in ev:
        if e.get("ph") == "M" or e is ann:
            keep.append(e)
        elif e.get("cat") == "gpu_user_annotation" and e["name"] == ann["name"]:
            keep.append(e)
        elif e.get("cat") == "kernel" and e.get("args", {}).get("correlation") in corr:
            keep.append(e)
    if "traceName" in d:  # the capture machine's path: keep the file name only
        d["traceName"] = d["traceName"].rsplit("/", 1)[-1]
    d["traceEvents"] = keep
    with open(dst, "w") as f:
        json.dump(d, f, separators=(",", ":"))
        f.write("\n")
    print(f"excerpt: {len(keep)} events, {sum(e.get('cat') == 'kernel' for e in keep)} kernels",
          file=sys.stderr)


if __name__ == "__main__":
    main()
