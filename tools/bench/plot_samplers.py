#!/usr/bin/python3
"""plot_samplers.py - MSE against time for each sampler, one panel per scene, from the
sampler_mse.csv that tools/bench/sampler_mse.py writes (tools/gpu/run.sh samplers).

Usage: /usr/bin/python3 tools/bench/plot_samplers.py sampler_mse.csv -o docs/samplers.png
Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import csv
from collections import defaultdict

STYLE = {
    "independent": dict(color="tab:gray", marker="o", linestyle="-"),
    "sobol": dict(color="tab:blue", marker="s", linestyle="--"),
    "zsobol": dict(color="tab:red", marker="^", linestyle="-."),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    series = defaultdict(list)
    with open(a.csv) as f:
        for r in csv.DictReader(f):
            series[(r["scene"], r["sampler"])].append((float(r["ms"]), float(r["mse"])))
    scenes = sorted({s for s, _ in series}, key=lambda s: s != "cornell")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(scenes), figsize=(5.5 * len(scenes), 4.2), squeeze=False)
    for ax, scene in zip(axes[0], scenes):
        for sampler, style in STYLE.items():
            pts = sorted(series.get((scene, sampler), []))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=sampler, **style)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("frame time on the H100 (ms; 1, 2, 4 ... 64 spp)")
        ax.set_ylabel("MSE against the reference")
        ax.set_title(scene)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
