#!/usr/bin/env python3
"""Where the seconds of a gate unit go, from atrex-gate results files.

    python3 bench/gate/unit-seconds.py RESULTS.jsonl[.gz] [RESULTS2.jsonl ...] [--units-of OTHER.jsonl]

For each file, the mean seconds per unit of each part of its worker runs
(attributed, clean), from `worker_seconds` (docs/gate.md, "Result line"):
  start+init  the worker's process start and CUDA/torch/Sanitizer init (the
              first unit of a worker: exec and dynamic loading, outside the
              worker's own clock, plus `cuda_ready`); 0 for later units
  load        loading the submission and the integrity checks (first unit)
  unit setup  the unit's own setup before its correctness trials
  correctness the correctness trials (inputs, calls, references, checks)
  performance warm-up, timed calls, re-checks (and kernel-time calls)
  rest        the rest of the unit's wall time as the parent saw it (a last
              unit: the worker's exit; others: reading the unit's end)
and the parent's own share (duration_s less the worker runs).
--units-of restricts every file to the units (by index) present in OTHER
(e.g. the suite run restricted to the units of a --worker-per-unit shard).
Prints a Markdown table."""
import gzip
import json
import sys


def load(path):
    out = {}
    for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        out[r["unit"]] = r
    return out


PARTS = ["start+init", "load", "unit setup", "correctness", "performance", "rest"]


def split(ws):
    """The parts of one worker run of one unit (seconds)."""
    wall = ws.get("wall_s", 0.0)
    first = "cuda_ready" in ws
    cuda = ws.get("cuda_ready", 0.0)
    loaded = ws.get("library_loaded", cuda)
    setup = ws.get("setup", loaded)
    corr = ws.get("correctness", setup)
    perf = ws.get("performance", corr)
    reached = max(perf, corr, setup, loaded, cuda)
    p = dict.fromkeys(PARTS, 0.0)
    if first:
        # Before the worker's clock (exec, dynamic loading) counts as start too:
        # wall - reached holds it and the exit; the exit is counted in "rest"
        # only for units after the first (continued ones have no exit).
        p["start+init"] = cuda
        p["load"] = loaded - cuda
        p["unit setup"] = setup - loaded
    else:
        p["unit setup"] = setup
    p["correctness"] = corr - setup
    p["performance"] = perf - corr
    p["rest"] = max(0.0, wall - reached)
    if first:
        # The process start before main and its exit are both in wall - reached;
        # shown as start (the part a batch saves once per unit).
        p["start+init"] += p["rest"]
        p["rest"] = 0.0
    return p, wall


def table(path, units):
    rs = load(path)
    if units is not None:
        rs = {u: r for u, r in rs.items() if u in units}
    n = len(rs)
    if n == 0:
        return f"{path}: no units\n"
    sums = {run: dict.fromkeys(PARTS, 0.0) for run in ("attributed", "clean")}
    walls = {"attributed": 0.0, "clean": 0.0}
    workers = {"attributed": 0, "clean": 0}
    total = parent = 0.0
    for r in rs.values():
        ws = r.get("worker_seconds", {})
        runs_wall = 0.0
        for run in ("attributed", "clean"):
            if run not in ws:
                continue
            p, wall = split(ws[run])
            for k in PARTS:
                sums[run][k] += p[k]
            walls[run] += wall
            runs_wall += wall
            if "cuda_ready" in ws[run]:
                workers[run] += 1
        if "memcheck" in ws:
            runs_wall += ws["memcheck"].get("wall_s", 0.0)
        total += r.get("duration_s", 0.0)
        parent += max(0.0, r.get("duration_s", 0.0) - runs_wall)
    lines = [f"{path}: {n} units, {total:.1f} s in units ({total / n:.2f} s per unit); "
             f"worker processes: {workers['attributed']} attributed, {workers['clean']} clean",
             "",
             "| run | " + " | ".join(PARTS) + " | worker wall |",
             "|---|" + "---|" * (len(PARTS) + 1)]
    for run in ("attributed", "clean"):
        lines.append(f"| {run} | " + " | ".join(f"{sums[run][k] / n:.3f}" for k in PARTS) +
                     f" | {walls[run] / n:.3f} |")
    lines.append(f"| parent | " + " | ".join("" for _ in PARTS) + f" | {parent / n:.3f} |")
    lines.append(f"| unit total | " + " | ".join("" for _ in PARTS) + f" | {total / n:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv):
    files, units = [], None
    i = 0
    while i < len(argv):
        if argv[i] == "--units-of":
            units = set(load(argv[i + 1]))
            i += 2
        else:
            files.append(argv[i])
            i += 1
    if not files:
        sys.exit(__doc__)
    for f in files:
        print(table(f, units))


if __name__ == "__main__":
    main(sys.argv[1:])
