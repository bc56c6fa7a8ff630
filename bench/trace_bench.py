#!/usr/bin/env python3
"""Throughput and peak memory of `atrex-trace ingest` on a large synthetic
Kineto trace.

Generates a chrome-trace JSON shaped like torch.profiler(record_shapes=True)
output of a Llama-style model serving prefill and decode steps (user
annotations, cpu_op events with Input Dims / Input type, cuda_runtime launches
with correlation ids, kernels on two streams, ac2g flow pairs, an unmapped
elementwise kernel per layer), then runs atrex-trace under /usr/bin/time -v
and reports MB/s and the peak resident set size.

    python3 bench/trace_bench.py --size-mb 1024 [--trace /tmp/atrex-bench.json]
        [--atrex-trace build/bin/atrex-trace] [--keep] [--gzip] [--jobs N]
        [--reuse] [--repeat N]

--reuse ingests an existing --trace (kept by an earlier --keep run) instead of
generating it; --repeat runs atrex-trace N times and reports each run and the
best (the trace is then in the page cache, and a run just after generating
1 GB competes with the kernel writing it back).

With --gzip the trace is compressed (gzip -6, as torch.profiler's .json.gz)
and atrex-trace reads the .json.gz; throughput is still per uncompressed MB.
"""
import argparse
import os
import re
import subprocess
import sys
import time

BF = "c10::BFloat16"


class Writer:
    def __init__(self, f):
        self.f = f
        self.first = True
        self.ext = 0
        self.corr = 0
        self.events = 0

    def emit(self, text):
        self.f.write(("    " if self.first else ",\n    ") + text)
        self.first = False
        self.events += 1


def step(w, t, phase, tokens, layers):
    """One forward pass; returns the time after it (us)."""
    h, inter, hq, hk, d = 4096, 14336, 32, 8, 128
    start = t
    w.emit('{"ph": "X", "cat": "user_annotation", "name": "%s_step", '
           '"pid": 1, "tid": 1, "ts": %.3f, "dur": %.3f}'
           % (phase, t, layers * 60.0 + 10))
    gpu_t = t + 5.0
    for layer in range(layers):
        ops = [
            ("aten::mm", [[tokens, h], [h, 3 * h // 2]], "nvjet_tst_192x192_64x4_h_bz_TNT", 7),
            ("aten::_scaled_dot_product_flash_attention" if phase == "prefill"
             else "aten::_scaled_dot_product_efficient_attention",
             [[1, hq, tokens, d], [1, hk, tokens, d], [1, hk, tokens, d], [], [], [], []]
             if phase == "prefill" else
             [[tokens, hq, 1, d], [tokens, hk, 2048, d], [tokens, hk, 2048, d], [], []],
             "flash_fwd_kernel" if phase == "prefill" else "fmha_cutlassF_bf16_aligned_64x64_rf_sm80", 7),
            ("aten::mm", [[tokens, h], [h, h]], "nvjet_tst_128x128_64x4_h_bz_TNT", 7),
            ("_C::fused_add_rms_norm", [[tokens, h], [tokens, h], [h], []], "fused_add_rms_norm_kernel", 8),
            ("aten::mm", [[tokens, h], [h, 2 * inter]], "nvjet_tst_256x128_64x4_h_bz_TNT", 7),
            ("_C::silu_and_mul", [[tokens, inter], [tokens, 2 * inter]], "act_and_mul_kernel", 7),
            ("aten::mm", [[tokens, inter], [inter, h]], "nvjet_tst_128x256_64x4_h_bz_TNT", 7),
            ("aten::add", [[tokens, h], [tokens, h], []], "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16> >", 7),
        ]
        for name, dims, kernel, stream in ops:
            w.ext += 1
            w.corr += 1
            types = ", ".join('"%s"' % (BF if dd else "Scalar") for dd in dims)
            dtxt = ", ".join("[" + ", ".join(str(x) for x in dd) + "]" for dd in dims)
            w.emit('{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1, "tid": 1, '
                   '"ts": %.3f, "dur": 6.000, "args": {"External id": %d, '
                   '"Record function id": 0, "Input Dims": [%s], "Input type": [%s], '
                   '"Ev Idx": %d}}' % (name, t, w.ext, dtxt, types, w.ext))
            w.emit('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", '
                   '"pid": 1, "tid": 1, "ts": %.3f, "dur": 3.000, "args": '
                   '{"External id": %d, "cbid": 211, "correlation": %d}}'
                   % (t + 1, w.ext, w.corr))
            dur = 2.0 + (tokens * 0.01 if phase == "prefill" else 1.0)
            w.emit('{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": %d, '
                   '"ts": %.3f, "dur": %.3f, "args": {"External id": %d, '
                   '"queued": 0, "device": 0, "context": 1, "stream": %d, '
                   '"correlation": %d, "registers per thread": 128, '
                   '"shared memory": 49152, "blocks per SM": 1.5, '
                   '"warps per SM": 8.0, "grid": [132, 1, 1], "block": [384, 1, 1], '
                   '"est. achieved occupancy %%": 12}}'
                   % (kernel, stream, gpu_t, dur, w.ext, stream, w.corr))
            w.emit('{"ph": "s", "id": %d, "pid": 1, "tid": 1, "ts": %.3f, '
                   '"cat": "ac2g", "name": "ac2g"}' % (w.corr, t + 1))
            w.emit('{"ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %.3f, '
                   '"cat": "ac2g", "name": "ac2g", "bp": "e"}'
                   % (w.corr, stream, gpu_t))
            t += 7.0
            gpu_t += dur + 0.5
    return max(t, gpu_t) + 20.0


def generate(path, size_mb, layers=32):
    target = size_mb * 1024 * 1024
    with open(path, "w", buffering=1 << 22) as f:
        f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, '
                '"name": "NVIDIA H200"}],\n  "traceEvents": [\n')
        w = Writer(f)
        t = 1.7e12  # Kineto timestamps are absolute microseconds
        n = 0
        while f.tell() < target:
            if n % 8 == 0:
                t = step(w, t, "prefill", 2048, layers)
            else:
                t = step(w, t, "decode", 64, layers)
            n += 1
        f.write('\n  ],\n  "traceName": "synthetic"\n}\n')
    return w.events


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--trace", default="/tmp/atrex-trace-bench.json")
    ap.add_argument("--atrex-trace", default="build/bin/atrex-trace")
    ap.add_argument("--map", default="suites/atrex-serve/trace-map.yaml")
    ap.add_argument("--keep", action="store_true",
                    help="keep the generated trace")
    ap.add_argument("--gzip", action="store_true",
                    help="compress the trace and ingest the .json.gz")
    ap.add_argument("--reuse", action="store_true",
                    help="ingest the existing --trace instead of generating it")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run atrex-trace this many times; report the best")
    ap.add_argument("--jobs", type=int, default=None,
                    help="atrex-trace --jobs (threads that parse the trace; "
                         "default: atrex-trace's, every core)")
    args = ap.parse_args()

    if args.reuse and os.path.exists(args.trace):
        with open(args.trace) as f:
            events = sum(line.startswith("    {") for line in f)
        print("reusing %s" % args.trace, flush=True)
    else:
        t0 = time.time()
        events = generate(args.trace, args.size_mb)
        print("generated %s: %.1f MB, %d events in %.1f s"
              % (args.trace, os.path.getsize(args.trace) / 1e6, events,
                 time.time() - t0), flush=True)
    size = os.path.getsize(args.trace)

    ingested = args.trace
    if args.gzip:
        t0 = time.time()
        subprocess.run(["gzip", "-6", "-f", "-k", args.trace], check=True)
        ingested = args.trace + ".gz"
        print("compressed to %s: %.1f MB in %.1f s"
              % (ingested, os.path.getsize(ingested) / 1e6, time.time() - t0), flush=True)
    cmd = ["/usr/bin/time", "-v", args.atrex_trace, "ingest", ingested,
           "--map", args.map, "-o", args.trace + ".weights.json"]
    if args.jobs is not None:
        cmd += ["--jobs", str(args.jobs)]
    runs = []
    for _ in range(max(1, args.repeat)):
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.time() - t0
        if p.returncode != 0:
            sys.stderr.write(p.stdout + p.stderr)
            sys.exit("atrex-trace failed")
        rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                               p.stderr).group(1))
        user = float(re.search(r"User time \(seconds\): ([\d.]+)", p.stderr).group(1))
        sys_s = float(re.search(r"System time \(seconds\): ([\d.]+)", p.stderr).group(1))
        if args.repeat > 1:
            print("run %d: wall %.2f s (%.1f MB/s), user %.2f s, sys %.2f s, "
                  "peak RSS %.1f MB" % (len(runs) + 1, wall, size / 1e6 / wall,
                                         user, sys_s, rss_kb / 1024.0), flush=True)
        runs.append((wall, user, sys_s, rss_kb, p))
    wall, user, sys_s, rss_kb, p = min(runs, key=lambda r: r[0])
    print(p.stdout)
    print("file: %.1f MB (%d events)" % (size / 1e6, events))
    print("wall: %.2f s, user %.2f s, sys %.2f s" % (wall, user, sys_s))
    print("throughput: %.1f MB/s (%.0f events/s)"
          % (size / 1e6 / wall, events / wall))
    print("peak RSS: %.1f MB (%.1f bytes per event, %.3f of the file size)"
          % (rss_kb / 1024.0, rss_kb * 1024.0 / events, rss_kb * 1024.0 / size))
    if not args.keep:
        os.remove(args.trace)
        os.remove(args.trace + ".weights.json")
        if args.gzip:
            os.remove(ingested)


if __name__ == "__main__":
    main()
