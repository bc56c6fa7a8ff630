#!/usr/bin/env python3
"""Roofline tightness of scored sets (issue 20): per operator and set, the
distribution of S_i = T_roofline / T_measured (the floor-including roofline of
a version-2 bundle, and the floor-free one), the problems above 1.0 (a bug in
the semantic work or the hardware table), and the small decode problems whose
roofline the latency floor decides.

  atrex score SEALED --set ... --format json -o score.json
  python3 bench/sets/roofline-tightness.py score.json > tightness.md
"""
import json
import statistics
import sys


def q(xs, f):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(f * (len(xs) - 1) + 0.5))] if xs else None


def fmt(x):
    return "-" if x is None else f"{x:.3f}"


def main():
    d = json.load(open(sys.argv[1]))
    sets = d["sets"]
    # Floor-bound: the latency floor decides the problem's roofline.
    fb_ids = {p["id"] for p in d["problems"]
              if p.get("t_roofline_nofloor_s") is not None and p["t_roofline_s"] > p["t_roofline_nofloor_s"]}
    for s in sets:
        for p in s["problems"]:
            p["floor_bound"] = p["id"] in fb_ids
    ops = sorted({p["operator"] for s in sets for p in s["problems"]})
    print("## Median S_i per operator (floor / no floor)\n")
    print("| operator | " + " | ".join(f"{s['name']} S (p10-p90)" for s in sets) +
          " | " + " | ".join(f"{s['name']} S no floor" for s in sets) + " |")
    print("|---" * (1 + 2 * len(sets)) + "|")
    for op in ops:
        row = [op]
        for key in ("s", "s_nofloor"):
            for s in sets:
                xs = [p[key] for p in s["problems"] if p["operator"] == op and p.get(key) is not None]
                cell = fmt(statistics.median(xs) if xs else None)
                if key == "s" and xs:
                    cell += f" ({fmt(q(xs, 0.1))}-{fmt(q(xs, 0.9))})"
                row.append(cell)
        print("| " + " | ".join(row) + " |")
    print("\n## By phase and floor\n")
    print("| set | phase | floor-bound problems | median S (floor-bound) | median S no floor (floor-bound) | other problems | median S (other) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for s in sets:
        for ph in ("decode", "prefill"):
            fb = [p for p in s["problems"] if p["phase"] == ph and p.get("floor_bound")]
            ot = [p for p in s["problems"] if p["phase"] == ph and not p.get("floor_bound")]
            med = lambda ps, k: fmt(statistics.median([p[k] for p in ps if p.get(k) is not None])) if ps else "-"
            print(f"| {s['name']} | {ph} | {len(fb)} | {med(fb, 's')} | {med(fb, 's_nofloor')} | {len(ot)} | {med(ot, 's')} |")
    print("\n## Above the roofline (T_roofline / T_measured > 1; S_i is capped at 1)\n")
    n = 0
    for s in sets:
        for p in s["problems"]:
            # The raw ratio: S_i itself is capped at 1.
            if p.get("t_measured_s") and p["t_roofline_s"] / p["t_measured_s"] > 1.0:
                n += 1
                print(f"- {s['name']} {p['id']} {p['operator']} {p['phase']}: T_roofline "
                      f"{p['t_roofline_s'] * 1e6:.2f} us / T_measured {p['t_measured_s'] * 1e6:.2f} us = "
                      f"{p['t_roofline_s'] / p['t_measured_s']:.3f}")
    if not n:
        print("none")


if __name__ == "__main__":
    main()
