#!/usr/bin/env python3
"""The kill experiment's table (docs/benchmark.md "How rays die"): reads bench JSONs
(`stencilrt bench --kill PATTERN:P --json F`, one pattern each) and prints, per pattern,
depth and mode: the frame's median time, the live rays it traced (camera and secondary,
shadow rays not counted), the time per live ray, and the mean live lanes per live warp
over its bounces; then, per survival, each mode's time per live ray under random (ray)
kills over its time under block kills (the benchmark issue's target: <= 1.25 for the
fastest mode). Standard library only: it runs on the GPU machine too.

usage: kill_table.py BENCH.json...
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


def main(paths):
    rs = sorted(rows(paths), key=lambda r: (r["survival"], r["depth"], r["pattern"], r["mode"]))
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
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
