#!/usr/bin/env python3
"""The samplers' error against time, from what tools/gpu/suites/samplers.sh leaves in DIR:

  SCENE-ref.pfm               the reference (many samples, independent numbers, another seed)
  SCENE-SAMPLER-N.pfm         the image at N spp (N = 1, 2, 4, ..., 64)
  SCENE-SAMPLER-time.csv      bench's CSV at 16 spp: the frame time of each mode

Prints, per scene, the MSE of every sampler at every N, the fastest mode's frame time at
16 spp, and the MSE at equal time: the time 16 spp of independent's take, the samples each
sampler fits in it (time per sample from its own 16-spp frames), its MSE there
(interpolated log-log between the powers of two), and the ratio to independent's. Writes
DIR/sampler_mse.csv (scene, sampler, spp, ms, mse) for tools/bench/plot_samplers.py.
Pure Python (no numpy), so that it runs on the GPU machine too.
"""
import array
import csv
import math
import os
import sys

SAMPLERS = ["independent", "sobol", "zsobol"]
COUNTS = [1, 2, 4, 8, 16, 32, 64]


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        if kind not in (b"PF", b"Pf"):
            raise SystemExit(f"{path}: not a PFM file")
        w, h = (int(v) for v in f.readline().split())
        scale = float(f.readline())
        data = array.array("f")
        data.frombytes(f.read())
        if scale > 0 and sys.byteorder == "little" or scale < 0 and sys.byteorder == "big":
            data.byteswap()
        channels = 3 if kind == b"PF" else 1
        if len(data) != w * h * channels:
            raise SystemExit(f"{path}: {len(data)} floats, want {w * h * channels}")
        return data


def mse(a, ref):
    return sum((x - y) * (x - y) for x, y in zip(a, ref)) / len(ref)


def fastest_ms(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    best = min(rows, key=lambda r: float(r["median_ms"]))
    return float(best["median_ms"]), best["mode"]


def mse_at(points, n):
    """MSE at n samples, log-log between the measured powers of two."""
    for (n0, e0), (n1, e1) in zip(points, points[1:]):
        if n0 <= n <= n1:
            t = (math.log(n) - math.log(n0)) / (math.log(n1) - math.log(n0))
            return math.exp(math.log(e0) + t * (math.log(e1) - math.log(e0)))
    return float("nan")


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    out = []
    for scene in ("cornell", "conference"):
        ref_path = os.path.join(d, f"{scene}-ref.pfm")
        if not os.path.exists(ref_path):
            continue
        ref = read_pfm(ref_path)
        errors, times = {}, {}
        for s in SAMPLERS:
            errors[s] = [(n, mse(read_pfm(os.path.join(d, f"{scene}-{s}-{n}.pfm")), ref)) for n in COUNTS]
            times[s] = fastest_ms(os.path.join(d, f"{scene}-{s}-time.csv"))
            for n, e in errors[s]:
                out.append((scene, s, n, times[s][0] * n / 16.0, e))
        print(f"## {scene}: MSE against spp")
        print("spp  " + "".join(f"{s:>14}" for s in SAMPLERS))
        for i, n in enumerate(COUNTS):
            print(f"{n:<5}" + "".join(f"{errors[s][i][1]:14.4e}" for s in SAMPLERS))
        print(f"## {scene}: at equal time (16 spp of independent's)")
        budget = times["independent"][0]
        base = errors["independent"][COUNTS.index(16)][1]
        for s in SAMPLERS:
            ms, mode = times[s]
            n = 16.0 * budget / ms
            e = mse_at(errors[s], n)
            print(f"{s:<12} 16 spp in {ms:8.3f} ms ({mode}); {n:5.1f} spp in the budget; MSE {e:.4e}, "
                  f"{e / base:.2f}x independent's")
    with open(os.path.join(d, "sampler_mse.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scene", "sampler", "spp", "ms", "mse"])
        w.writerows(out)


if __name__ == "__main__":
    main()
