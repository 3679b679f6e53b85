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


SEED_FPS = [30.0, 25.0, 23.7, 20.0, 19.4, 18.8]  # seed 004, GTX 560, depths 1..6


def label(r):
    """The mode, and the launch kind where it is not the default graph."""
    launch = r.get("launch", "graph")
    return r["mode"] if launch == "graph" else f"{r['mode']} ({launch})"


def sweep(doc, title):
    if not doc:
        return
    res = doc["results"]
    modes = list(dict.fromkeys(label(r) for r in res))
    depths = sorted(set(r["depth"] for r in res))
    by = {(label(r), r["depth"]): r for r in res}
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
    if 1 in depths:
        shown = [d for d in depths if d <= 6]
        print("FPS at each depth over FPS at depth 1, beside seed 004's (GTX 560):\n")
        print("| | " + " | ".join(str(d) for d in shown) + " |")
        print("|---|" + "---:|" * len(shown))
        for m in modes:
            print(f"| {m} | " + " | ".join(f"{by[(m, d)]['fps'] / by[(m, 1)]['fps']:.2f}" for d in shown) + " |")
        print("| seed 004 | " + " | ".join(f"{SEED_FPS[d - 1] / SEED_FPS[0]:.2f}" for d in shown) + " |\n")
    if any(c["ok"] for c in doc.get("dead_bounce") or []):
        print("Cost of a bounce once live rays are under 0.1% of the primary rays (slope over 4 bounces), "
              "and FPS kept at depth 12:\n")
        print("| mode | launch | depths | µs per bounce | FPS depth 12 / depth 1 |")
        print("|---|---|---|---:|---:|")
        for c in doc["dead_bounce"]:
            span = f"{c['from_depth']}..{c['to_depth']}" if c["ok"] else "-"
            us = f"{c['us_per_bounce']:.1f}" if c["ok"] else "-"
            r12 = f"{c['fps_ratio_d12']:.2f}" if c.get("fps_ratio_d12") else "-"
            print(f"| {c['mode']} | {c['launch']} | {span} | {us} | {r12} |")
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
    skip(load(d, "skip-1080p"))
    sizes = [(n, load(d, n)) for n in ("default-3840x2160", "default-7680x4320")]
    if any(doc for _, doc in sizes):
        print("`stencil` against `flags` frame time at depth 8 (graph launches):\n")
        print("| size | stencil ms | flags ms | stencil / flags |")
        print("|---|---:|---:|---:|")
        for n, doc in [("default", load(d, "default"))] + sizes:
            if not doc:
                continue
            ms = {label(r): r["frame_ms"]["median"] for r in doc["results"] if r["depth"] == 8}
            s = doc["settings"]
            if "stencil" in ms and "flags" in ms:
                print(f"| {s['width']}x{s['height']} | {ms['stencil']:.3f} | {ms['flags']:.3f} | "
                      f"{ms['stencil'] / ms['flags']:.2f} |")
        print()


if __name__ == "__main__":
    main()
