#!/usr/bin/env python3
"""The map (docs/performance.md "The map", README "What it found"): reads the bench JSONs
of the map suite (tools/gpu/suites/map.sh, one workload each) and prints, per workload, each
mode's median frame time, the fastest mode, the fastest against the megakernel, the rays
traced per second and each mode's SIMD efficiency (live lanes per warp step over 32, as the
bench counts it: the wavefronts per bounce, regenerate and the pool per warp step of their
launches). Standard library only: it runs on the GPU machine too.

usage: map_table.py BENCH.json...   (the workload's name is the file's, less "map-")
"""
import json
import os
import sys

MODES = ["stencil", "flags", "compact", "pool", "megakernel", "regenerate"]


def load(path):
    with open(path) as f:
        doc = json.load(f)
    name = os.path.basename(path)[:-len(".json")]
    name = name[len("map-"):] if name.startswith("map-") else name
    s = doc.get("settings", {})
    rows = {}
    for r in doc["results"]:
        rows[r["mode"]] = r
    return name, s, rows


def main(paths):
    print("| workload | " + " | ".join(MODES) + " | fastest | megakernel / fastest | G rays/s (fastest) |")
    print("|---|" + "---:|" * len(MODES) + "---|---:|---:|")
    simd = []
    for path in paths:
        name, s, rows = load(path)
        ms = {m: rows[m]["frame_ms"]["median"] for m in MODES if m in rows}
        if not ms:
            continue
        best = min(ms, key=ms.get)
        mega = ms.get("megakernel")
        cells = []
        for m in MODES:
            if m not in ms:
                cells.append("-")
            elif m == best:
                cells.append("**%.3f**" % ms[m])
            else:
                cells.append("%.3f" % ms[m])
        ratio = "%.2fx" % (mega / ms[best]) if mega else "-"
        rays = rows[best].get("rays_per_s", 0.0) / 1e9
        print("| %s | %s | %s | %s | %.2f |" % (name, " | ".join(cells), best, ratio, rays))
        simd.append((name, {m: rows[m].get("simd_efficiency", float("nan")) for m in MODES if m in rows}))
    print()
    print("SIMD efficiency (live lanes per warp step / 32):")
    print()
    print("| workload | " + " | ".join(MODES) + " |")
    print("|---|" + "---:|" * len(MODES))
    for name, e in simd:
        print("| %s | %s |" % (name, " | ".join("%.3f" % e[m] if m in e else "-" for m in MODES)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
