#!/usr/bin/env python3
"""Shrink a Kineto chrome trace to what atrex-trace reads, keeping its results.

    python3 slim.py IN.json[.gz] OUT.json[.gz]

Kept: metadata events; user annotations (CPU and GPU); kernels; the
cuda_runtime/cuda_driver launch of every kernel (joined by `correlation`); the
cpu_op events that enclose a kept launch on its thread (the launch stacks) or
that a kernel or launch names by `External id`. Dropped: CPU ops that launched
nothing, ac2g flow events (every kernel carries `correlation`), memcpy/memset
activities, python events; and event arguments atrex-trace does not read.
`atrex-trace ingest` gives the same weights on the slim and on the full trace
(bench/trace-capture/README.md shows the check).
"""
import bisect
import gzip
import json
import sys

KEEP_ARGS = {
    "kernel": ("correlation", "External id", "device", "stream"),
    "cuda_runtime": ("correlation", "External id"),
    "cuda_driver": ("correlation", "External id"),
    "cpu_op": ("Input Dims", "Input type", "External id"),
}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    d = load(src)
    events = d["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    corr = {e["args"]["correlation"] for e in kernels if "correlation" in e.get("args", {})}
    if len(corr) != len(kernels):
        sys.exit(f"slim: {src}: some kernels carry no correlation; keep the flows (not supported)")
    launches = [e for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver")
                and e.get("args", {}).get("correlation") in corr]
    ext = {e["args"].get("External id") for e in kernels + launches} - {None}
    by_thread = {}
    for e in launches:
        by_thread.setdefault((e["pid"], e["tid"]), []).append(e["ts"])
    for ts in by_thread.values():
        ts.sort()
    out = []
    for e in events:
        cat = e.get("cat")
        if e.get("ph") == "M" or cat in ("user_annotation", "gpu_user_annotation"):
            out.append(e)
            continue
        if cat == "kernel" or (cat in ("cuda_runtime", "cuda_driver")
                               and e.get("args", {}).get("correlation") in corr):
            pass
        elif cat == "cpu_op":
            ts = by_thread.get((e["pid"], e["tid"]), [])
            i = bisect.bisect_left(ts, e["ts"])
            inside = i < len(ts) and ts[i] <= e["ts"] + e.get("dur", 0)
            if not inside and e.get("args", {}).get("External id") not in ext:
                continue
        else:
            continue
        args = e.get("args", {})
        e = dict(e)
        e["args"] = {k: args[k] for k in KEEP_ARGS[cat] if k in args}
        out.append(e)
    if "traceName" in d:  # the capture machine's path: keep the file name only
        d["traceName"] = d["traceName"].rsplit("/", 1)[-1]
    d["traceEvents"] = out
    opener = gzip.open if dst.endswith(".gz") else open
    with opener(dst, "wt") as f:
        json.dump(d, f, separators=(",", ":"))
    print(f"slim: {src}: {len(events)} -> {len(out)} events", file=sys.stderr)


if __name__ == "__main__":
    main()
