#!/usr/bin/env python3
"""Times torch.cumsum twice (dim 0, then dim 1) as a SAT on the GPU, for the record next to
`satfeat bench sat`: u8 input -> int32 table and f32 -> f32, same sizes, median of CUDA-event
times after warm-up. Usage: python3 bench/torch_cumsum.py [--csv FILE]"""
import argparse
import statistics

import torch

SIZES = [(s, s) for s in (256, 512, 1024, 2048, 4096, 8192, 16384, 32768)] + [(1920, 1080)]


def time_us(fn, reps):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000.0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv")
    args = ap.parse_args()
    rows = []
    dev = torch.cuda.get_device_name(0)
    print(f"device: {dev}, torch {torch.__version__}")
    for w, h in SIZES:
        for kind in ("u8", "f32"):
            g = torch.Generator(device="cuda").manual_seed(1)
            if kind == "u8":
                x = torch.randint(0, 256, (h, w), dtype=torch.uint8, device="cuda", generator=g)
                fn = lambda: torch.cumsum(torch.cumsum(x, 0, dtype=torch.int32), 1)
            else:
                x = torch.rand((h, w), dtype=torch.float32, device="cuda", generator=g)
                fn = lambda: torch.cumsum(torch.cumsum(x, 0), 1)
            try:
                reps = 50 if w * h >= 8192 * 8192 else 200
                us = time_us(fn, reps)
            except torch.OutOfMemoryError:
                us = float("nan")
            print(f"{w}x{h:<6} {kind:<4} torch.cumsum x2 {us:12.2f} us")
            rows.append((dev, w, h, kind, us))
            del x
            torch.cuda.empty_cache()
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("device,width,height,type,method,median_us\n")
            for dev_, w, h, kind, us in rows:
                f.write(f'"{dev_}",{w},{h},{kind},torch.cumsum x2,{us:.3f}\n')


if __name__ == "__main__":
    main()
