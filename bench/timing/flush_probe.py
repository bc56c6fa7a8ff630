#!/usr/bin/env python3
"""Where does a cold-cache event timing differ from Nsight Compute's?

One memory-bound kernel with silu_and_mul's traffic at T=4096, D=14336 (reads
2 x 117 MB, writes 117 MB: torch.mul(a, b, out=c) in bf16) is timed with CUDA
events around a single launch under several preparations:

  warm      no flush (the same buffers every call)
  read      the gate's L2 flush: a read sweep of a 256 MB buffer
  zero      triton do_bench's flush: zero_() of a 256 MB buffer (dirty lines)
  read+tlb  read sweep, then one 4-byte read per 64 KiB of every operand
            (warms the GPU TLB for the operands, pulls < 1 MB into L2)
  tlb       one read per 64 KiB only

Each preparation is followed by a ~50 us device sleep before the start event,
as in the gate. Run it under ncu to get gpu__time_duration of the same kernel:

  ncu --clock-control none --cache-control all -k regex:elementwise \
      --metrics gpu__time_duration.sum --csv python3 flush_probe.py --ncu
"""
import argparse
import json
import statistics
import sys

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ncu", action="store_true", help="launch the kernel 20 times, no timing")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--T", type=int, default=4096)
    ap.add_argument("--D", type=int, default=14336)
    args = ap.parse_args()
    dev = torch.device("cuda")
    a = torch.randn(args.T, args.D, device=dev, dtype=torch.bfloat16)
    b = torch.randn_like(a)
    c = torch.empty_like(a)
    if args.ncu:
        for _ in range(20):
            torch.mul(a, b, out=c)
        torch.cuda.synchronize()
        return
    flush = torch.zeros(256 << 18, dtype=torch.int32, device=dev)  # 256 MB
    sink = torch.empty((), dtype=torch.int64, device=dev)
    stride = (64 << 10) // 2  # bf16 elements per 64 KiB

    def touch():
        for t in (a, b, c):
            t.view(-1)[::stride].sum()

    preps = {
        "warm": lambda: None,
        "read": lambda: torch.sum(flush, dim=0, out=sink),
        "zero": lambda: flush.zero_(),
        "read+tlb": lambda: (torch.sum(flush, dim=0, out=sink), touch()),
        "tlb": touch,
    }
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(20):
        torch.mul(a, b, out=c)
    res = {}
    for name, prep in preps.items():
        ts = []
        for i in range(args.reps):
            prep()
            torch.cuda.synchronize()
            torch.cuda._sleep(100000)
            s.record()
            torch.mul(a, b, out=c)
            e.record()
            torch.cuda.synchronize()
            ts.append(s.elapsed_time(e) * 1000)
        ts.sort()
        res[name] = {"median_us": statistics.median(ts), "p10_us": ts[len(ts) // 10],
                     "p90_us": ts[len(ts) * 9 // 10]}
        print(f"{name:10s} median {res[name]['median_us']:8.2f} us  p10 {res[name]['p10_us']:8.2f}"
              f"  p90 {res[name]['p90_us']:8.2f}", file=sys.stderr)
    json.dump({"T": args.T, "D": args.D, "gpu": torch.cuda.get_device_name(), "reps": args.reps,
               "results": res}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
