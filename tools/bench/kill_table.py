#!/usr/bin/env python3
"""The kill experiment's table (docs/benchmark.md "How rays die"): reads bench JSONs
(`stencilrt bench --kill PATTERN:P --json F`, one pattern each) and prints, per pattern,
depth and mode: the frame's median time, the live rays it traced (camera and secondary,
shadow rays not counted), the time per live ray, and the mean live lanes per live warp
over its bounces; then, per survival, each mode's time per live ray under random (ray)
kills over its time under block kills: what scattered deaths cost each mode, beyond the
deaths themselves. Standard library only: it runs on the GPU machine too.
With --plot PNG (matplotlib: python3-matplotlib) it also draws the sweep: the time per
live ray (left) and frames per second (right) against the mean live lanes per live warp,
a colour per mode, a marker per pattern, the lanes of each survival joined per pattern.

usage: kill_table.py [--plot PNG] BENCH.json...
"""
import json
import sys


def rows(paths):
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        kill = doc.get("settings", {}).get("kill", "none")
        for r in doc["results"]:
            live = sum(b["live_rays"] for b in r["bounces"])
            warps = sum(b["live_warps"] for b in r["bounces"])
            ms = r["frame_ms"]["median"]
            yield {
                "kill": kill,
                "pattern": kill.split(":")[0],
                "survival": kill.split(":")[1] if ":" in kill else "-",
                "mode": r["mode"],
                "depth": r["depth"],
                "ms": ms,
                "live": live,
                "ns_per_ray": ms * 1e6 / live if live else float("nan"),
                "lanes": live / warps if warps else float("nan"),
            }


MODE_COLOURS = {"stencil": "tab:blue", "flags": "tab:orange", "compact": "tab:green", "megakernel": "tab:red",
                "regenerate": "tab:purple", "pool": "tab:brown"}
PATTERN_MARKERS = {"none": "*", "ray": "o", "warp": "s"}


def plot(rs, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for r in rs:
        if r["lanes"] != r["lanes"]:  # nan: nothing traced
            continue
        colour = MODE_COLOURS.get(r["mode"], "black")
        marker = PATTERN_MARKERS.get(r["pattern"], "^")  # blocks: triangles
        left.scatter(r["lanes"], r["ns_per_ray"], color=colour, marker=marker, s=40)
        right.scatter(r["lanes"], 1000.0 / r["ms"], color=colour, marker=marker, s=40)
    for ax, label in ((left, "ns per live ray"), (right, "frames per second")):
        ax.set_xlabel("mean live lanes per live warp")
        ax.set_ylabel(label)
        ax.set_xlim(0, 33)
        ax.grid(True, alpha=0.3)
    modes = sorted({r["mode"] for r in rs})
    patterns = sorted({r["pattern"] for r in rs})
    handles = [plt.Line2D([], [], color=MODE_COLOURS.get(m, "black"), marker="o", linestyle="", label=m) for m in modes]
    handles += [plt.Line2D([], [], color="grey", marker=PATTERN_MARKERS.get(p, "^"), linestyle="", label=p)
                for p in patterns]
    right.legend(handles=handles, fontsize=8, loc="best")
    depths = sorted({r["depth"] for r in rs})
    fig.suptitle("How rays die: time per live ray against live lanes per live warp (depth %s)"
                 % ",".join(str(d) for d in depths))
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(paths, plot_to=None):
    rs = sorted(rows(paths), key=lambda r: (r["survival"], r["depth"], r["pattern"], r["mode"]))
    if plot_to:
        plot(rs, plot_to)
    print("| kill | depth | mode | ms | live rays (M) | ns per live ray | live lanes per live warp |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for r in rs:
        print("| %s | %d | %s | %.3f | %.2f | %.3f | %.1f |" % (r["kill"], r["depth"], r["mode"], r["ms"],
                                                                   r["live"] / 1e6, r["ns_per_ray"], r["lanes"]))
    by = {(r["pattern"], r["survival"], r["depth"], r["mode"]): r for r in rs}
    print()
    print("| survival | depth | mode | ns per live ray, ray kills / block kills |")
    print("|---|---:|---|---:|")
    for (pattern, survival, depth, mode), r in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][3])):
        if pattern != "ray":
            continue
        blocks = [v for (p, s, d, m), v in by.items() if p.startswith("block") and s == survival and d == depth and m == mode]
        for b in blocks:
            print("| %s (%s) | %d | %s | %.3f |" % (survival, b["pattern"], depth, mode, r["ns_per_ray"] / b["ns_per_ray"]))


if __name__ == "__main__":
    args = sys.argv[1:]
    out = None
    if len(args) >= 2 and args[0] == "--plot":
        out, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    main(args, out)
