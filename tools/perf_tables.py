#!/usr/bin/env python3
"""Markdown tables for the README's Performance section, from `stencilrt bench` JSON.

usage: perf_tables.py DIR   (DIR holds default.json, conference.json, skip.json, ... as
                             written by tools/gpu-perf.sh)
"""
import json
import os
import sys


def load(d, name):
    p = os.path.join(d, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else None


def sweep(doc, title):
    if not doc:
        return
    res = doc["results"]
    modes = list(dict.fromkeys(r["mode"] for r in res))
    depths = sorted(set(r["depth"] for r in res))
    by = {(r["mode"], r["depth"]): r for r in res}
    s = doc["settings"]
    print(f"**{title}** ({s['width']}x{s['height']}, median of {res[0]['frames']} frames; "
          "FPS and G rays/s, all rays incl. shadow rays)\n")
    print("| depth | " + " | ".join(f"{m} FPS | {m} G rays/s" for m in modes) + " |")
    print("|---:|" + "---:|---:|" * len(modes))
    for d in depths:
        cells = []
        for m in modes:
            r = by.get((m, d))
            cells += [f"{r['fps']:.0f}", f"{r['rays_per_s'] * 1e-9:.2f}"] if r else ["", ""]
        print(f"| {d} | " + " | ".join(cells) + " |")
    print()
    deepest = max(depths)
    print(f"Live rays / live warps entering each bounce at depth {deepest}:\n")
    print("| bounce | " + " | ".join(f"{m} rays | {m} warps" for m in modes) + " |")
    print("|---:|" + "---:|---:|" * len(modes))
    nb = max(len(by[(m, deepest)]["bounces"]) for m in modes)
    for b in range(nb):
        cells = []
        for m in modes:
            bs = by[(m, deepest)]["bounces"]
            cells += [str(bs[b]["live_rays"]), str(bs[b]["live_warps"])] if b < len(bs) else ["", ""]
        print(f"| {b} | " + " | ".join(cells) + " |")
    print()


def skip(doc):
    if not doc:
        return
    sk = doc["skip"]
    print(f"**Skipping dead rays** ({sk['rays']} rays per launch, median of {sk['iterations']} launches; "
          f"empty kernel over all rays: {sk['empty_ms'] * 1000:.1f} µs)\n")
    print("| mode | pattern | live | time µs | × empty kernel | G dead rays/s |")
    print("|---|---|---:|---:|---:|---:|")
    for r in sk["results"]:
        print(f"| {r['mode']} | {r['pattern']} | {r['live_fraction'] * 100:g}% | {r['median_ms'] * 1000:.1f} | "
              f"{r['median_ms'] / sk['empty_ms']:.2f} | {r['dead_rays'] / (r['median_ms'] * 1e-3) * 1e-9:.0f} |")
    print()


def main():
    d = sys.argv[1]
    sweep(load(d, "default"), "Default scene, untuned launch sizes")
    sweep(load(d, "default-tuned"), "Default scene, tuned launch sizes")
    sweep(load(d, "conference"), "Conference, untuned")
    sweep(load(d, "conference-tuned"), "Conference, tuned")
    skip(load(d, "skip"))


if __name__ == "__main__":
    main()
