#!/usr/bin/env python3
"""The fast Kineto reader (parallel parts of a window, atrex-trace's default)
against the reference reader (one event at a time): for each trace, and for
single-byte corruptions and truncations of it, both give byte-identical
`kernels` output and weights, or the same error message.

    reader_equivalence.py ATREX_TRACE MAP OUTDIR TRACE... [--corrupt N]

Small chunks, windows and parts make events straddle window boundaries and
parts start at guessed boundaries (some inside strings) even in small files.
"""
import os
import subprocess
import sys

FAST_SETTINGS = [
    ["--jobs", "1"],
    ["--jobs", "4", "--min-part-size", "64"],
    ["--jobs", "3", "--chunk-size", "16", "--window-size", "64",
     "--min-part-size", "16"],
    ["--jobs", "2", "--chunk-size", "100", "--window-size", "1000",
     "--min-part-size", "100"],
]


def run(tool, mapfile, path, extra, out):
    k = subprocess.run([tool, "kernels", path, "--map", mapfile] + extra,
                       capture_output=True)
    w = subprocess.run([tool, "ingest", path, "--map", mapfile, "--quiet",
                        "-o", out] + extra, capture_output=True)
    weights = b""
    if w.returncode == 0:
        with open(out, "rb") as f:
            weights = f.read()
    return (k.returncode, k.stdout, k.stderr, w.returncode, weights, w.stderr)


def compare(tool, mapfile, outdir, path, settings):
    ref = run(tool, mapfile, path, ["--reader", "reference"],
              os.path.join(outdir, "ref.json"))
    for extra in settings:
        got = run(tool, mapfile, path, extra, os.path.join(outdir, "fast.json"))
        if got != ref:
            sys.exit("MISMATCH for %s with %s:\nreference: %r\nfast:      %r"
                     % (path, " ".join(extra), ref, got))
    return ref


def main():
    args = sys.argv[1:]
    corrupt = 0
    if "--corrupt" in args:
        i = args.index("--corrupt")
        corrupt = int(args[i + 1])
        del args[i:i + 2]
    tool, mapfile, outdir, traces = args[0], args[1], args[2], args[3:]
    os.makedirs(outdir, exist_ok=True)
    cases = errors = 0
    for path in traces:
        ref = compare(tool, mapfile, outdir, path, FAST_SETTINGS)
        cases += 1
        if ref[0] != 0:
            sys.exit("reference reader failed on %s: %r" % (path, ref[2]))
        if not corrupt:
            continue
        data = open(path, "rb").read()
        step = max(1, len(data) // corrupt)
        for n, at in enumerate(range(0, len(data), step)):
            for variant in (data[:at] + b'"}, {'[n % 5:n % 5 + 1] + data[at + 1:],
                            data[:at] + b"\\" + data[at + 1:],
                            data[:at]):
                bad = os.path.join(outdir, "bad.json")
                with open(bad, "wb") as f:
                    f.write(variant)
                r = compare(tool, mapfile, outdir, bad, FAST_SETTINGS[2:3])
                cases += 1
                errors += r[0] != 0
    print("equivalent: %d cases, %d of them errors" % (cases, errors))


if __name__ == "__main__":
    main()
