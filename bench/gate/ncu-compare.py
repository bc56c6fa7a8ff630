#!/usr/bin/env python3
"""Compare the gate's kernel timings with Nsight Compute's (issue 15).

  bench/gate/ncu-compare.py NCU_CSV GATE_JSONL [--plan PLAN] [--tolerance 0.02] [--markdown]

NCU_CSV is what bench/gate/run-h200-gatefast.sh's `ncu` step writes: one
section per submission ("== ncu shard i/n", ncu's --csv output of
gpu__time_duration.sum for the profiled launches of that shard's worker).
GATE_JSONL is the `clean` step's results (the gate as it runs by default on
the same plan). Shard i is the plan's unit i; the script checks that the
kernels profiled in a shard are the submission's own (one kernel name per
shard) and compares ncu's median with the gate's `performance.median_us`.

Exits 1 when a unit has no ncu samples or its difference exceeds the
tolerance, so that a run cannot be reported as matching by accident.
"""
import argparse
import csv
import re
import json
import statistics
import sys

UNITS = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}


def read_ncu(path):
    """Returns {shard: [(kernel name, microseconds), ...]}."""
    shards, shard, header = {}, None, None
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("== ncu shard "):
                shard = int(line.split()[3].split("/")[0])
                shards.setdefault(shard, [])
                header = None
                continue
            if not line.startswith('"') or shard is None:
                continue  # ==PROF== / ==WARNING== lines, the gate's own output
            row = next(csv.reader([line]))
            if row and row[0] == "ID":
                header = row
                continue
            if header is None or len(row) != len(header):
                continue
            r = dict(zip(header, row))
            if r.get("Metric Name") != "gpu__time_duration.sum":
                continue
            unit = r.get("Metric Unit", "")
            if unit not in UNITS:
                raise SystemExit(f"{path}: unknown metric unit '{unit}'")
            value = float(r["Metric Value"].replace(",", "")) * UNITS[unit]
            shards[shard].append((r["Kernel Name"], value))
    return shards


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ncu_csv")
    ap.add_argument("gate_jsonl")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--kernel", default="^{operator}_kernel$",
                    help="regular expression of the submission's own kernel name ({operator}: the unit's "
                         "operator); other kernels ncu profiled (torch's input generation and reference) are "
                         "left out (default %(default)s)")
    a = ap.parse_args()
    shards = read_ncu(a.ncu_csv)
    gate = {}
    with open(a.gate_jsonl) as f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)
            except ValueError as e:
                raise SystemExit(f"{a.gate_jsonl}:{n}: not JSON: {e}")
            gate[r["unit"]] = r
    rows, bad = [], 0
    for unit in sorted(gate):
        r = gate[unit]
        perf = r.get("performance") or {}
        own = re.compile(a.kernel.format(operator=r["problem"]["operator"]))
        samples = [(k, v) for k, v in shards.get(unit, []) if own.search(k.split("(")[0].removeprefix("void "))]
        names = sorted({k.split("(")[0] for k, _ in samples})
        gmed = perf.get("median_us")
        if not samples or gmed is None:
            bad += 1
            rows.append((r["problem"]["id"], ",".join(names) or "-", len(samples), None, gmed, None, "no samples"
                         if not samples else "no gate median"))
            continue
        nmed = statistics.median(v for _, v in samples)
        diff = gmed / nmed - 1
        ok = abs(diff) <= a.tolerance and len(names) == 1
        bad += not ok
        rows.append((r["problem"]["id"], ",".join(names), len(samples), nmed, gmed, diff,
                     "ok" if ok else ("several kernels" if len(names) != 1 else "over tolerance")))
    if a.markdown:
        print("| problem | kernel | ncu launches | ncu median us | gate median us | gate vs ncu | within "
              f"{a.tolerance:.0%} |")
        print("|---|---|---|---|---|---|---|")
    for p, k, n, nm, gm, d, why in rows:
        f = lambda x, fmt: "-" if x is None else format(x, fmt)
        if a.markdown:
            print(f"| {p} | {k} | {n} | {f(nm, '.2f')} | {f(gm, '.2f')} | {f(d, '+.2%')} | {why} |")
        else:
            print(f"{p:55} {k:40} n={n:<3} ncu {f(nm, '.2f'):>9} gate {f(gm, '.2f'):>9} {f(d, '+.2%'):>8} {why}")
    within = sum(1 for r in rows if r[-1] == "ok")
    print(f"{within} of {len(rows)} units within {a.tolerance:.0%} of ncu", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
