#!/usr/bin/env python3
"""atrex-lint wall time against `clang++-22 -fsyntax-only` on the same file
with the same flags (the parse is the floor), and files per second when many
files are linted in parallel.

    bench/lint_bench.py [--out bench/results/lint-perf.md] [files...]

Default files: examples/lint and test/lint (*.cu, *.hip, *.cpp). Each timing
is the median of --reps runs. atrex-lint is timed three ways: --no-pch (the
same work as clang plus the analysis), with a warm PCH cache, and with a cold
one (the first file of a new torch prefix pays for the PCH).
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINT = os.path.join(ROOT, "build", "bin", "atrex-lint")
CLANG = "/usr/lib/llvm-22/bin/clang++"


def timed(cmd, env=None):
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env)
    return time.perf_counter() - t0


def median(cmd, reps, env=None):
    return statistics.median(timed(cmd, env) for _ in range(reps))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--out")
    ap.add_argument("--lint", default=LINT,
                    help="atrex-lint binary (default: build/bin/atrex-lint)")
    a = ap.parse_args()
    lint = a.lint
    files = a.files or sorted(
        glob.glob(os.path.join(ROOT, "examples/lint/*.cu")) +
        glob.glob(os.path.join(ROOT, "examples/lint/*.hip")) +
        glob.glob(os.path.join(ROOT, "test/lint/*.cu")) +
        glob.glob(os.path.join(ROOT, "test/lint/*.hip")))
    cache = tempfile.mkdtemp(prefix="atrex-bench-")
    env = dict(os.environ, ATREX_CACHE_DIR=cache)
    rows = []
    for f in files:
        cmd = subprocess.run([lint, "--print-command", f], capture_output=True,
                             text=True, env=env).stdout.split()
        clang = median([CLANG] + cmd[1:], a.reps)
        nopch = median([lint, "--no-pch", f], a.reps, env)
        torch = "torch/" in open(f, errors="replace").read()
        cold = warm = None
        if torch:
            shutil.rmtree(cache, ignore_errors=True)
            cold = timed([lint, f], env)
            warm = median([lint, f], a.reps, env)
        rows.append((os.path.relpath(f, ROOT), clang, nopch, cold, warm))
        print(f"{rows[-1][0]}: clang {clang:.2f}s, lint {nopch:.2f}s "
              f"({nopch / clang:.2f}x)" +
              (f", pch cold {cold:.2f}s warm {warm:.2f}s" if torch else ""),
              flush=True)
    # Throughput: all files, a warm cache, -j jobs.
    subprocess.run([lint] + files, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=env)
    t = timed([lint, "-j", str(a.jobs)] + files, env)
    t1 = timed([lint, "-j", "1"] + files, env)
    shutil.rmtree(cache, ignore_errors=True)

    ratios = [r[2] / r[1] for r in rows]
    lines = [
        "| file | clang -fsyntax-only (s) | atrex-lint --no-pch (s) | ratio | "
        "atrex-lint PCH cold (s) | atrex-lint PCH warm (s) |",
        "|---|---:|---:|---:|---:|---:|"]
    for name, clang, nopch, cold, warm in rows:
        lines.append(f"| {name} | {clang:.2f} | {nopch:.2f} | "
                     f"{nopch / clang:.2f} | "
                     f"{'' if cold is None else f'{cold:.2f}'} | "
                     f"{'' if warm is None else f'{warm:.2f}'} |")
    lines += [
        "",
        f"files: {len(rows)}; ratio atrex-lint/clang (no PCH): median "
        f"{statistics.median(ratios):.2f}, max {max(ratios):.2f}",
        f"throughput, warm PCH cache: {len(files) / t:.2f} files/s with -j "
        f"{a.jobs} ({t:.1f} s), {len(files) / t1:.2f} files/s with -j 1 "
        f"({t1:.1f} s)",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())
