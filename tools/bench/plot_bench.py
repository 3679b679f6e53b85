#!/usr/bin/python3
"""plot_bench.py - draw a `stencilrt bench --json` record.

Left: frames per second against trace depth, one line per dead-ray mode (the median
frame; the shaded band is p10..p90 of the timed frames).
Right: live warps per bounce at each mode's deepest run, and the warps of the whole
grid for scale; live rays per bounce on a second axis.

Usage: /usr/bin/python3 tools/bench/plot_bench.py BENCH.json -o BENCH.png
       /usr/bin/python3 tools/bench/plot_bench.py BENCH.json --data   (what would be drawn, as JSON)
Needs matplotlib (Debian: python3-matplotlib) to draw; --data does not.
"""
import argparse
import json
import os
import sys

STYLE = {
    "stencil": dict(color="tab:blue", marker="o", linestyle="-"),
    "flags": dict(color="tab:orange", marker="s", linestyle="--"),
    "compact": dict(color="tab:green", marker="^", linestyle="-."),
    "megakernel": dict(color="tab:red", marker="D", linestyle="-"),
    "regenerate": dict(color="tab:purple", marker="v", linestyle="--"),
    "pool": dict(color="tab:brown", marker="P", linestyle=":"),
}


def label(r):
    """The mode, and the launch kind where it is not the default graph."""
    launch = r.get("launch", "graph")
    return r["mode"] if launch == "graph" else f"{r['mode']} ({launch})"


def style(name):
    base = STYLE.get(name.split(" ")[0], dict(marker="x", linestyle=":"))
    return dict(base, linestyle=":", alpha=0.7) if "(" in name else base


# The FPS by depth of the GTX 560 stencil tracer (seed 004: the 2012 Habr article "a
# stencil buffer in CUDA", on its simplest reflective scene), drawn as a share of its
# depth-1 FPS scaled to the stencil's depth-1 FPS: how the curve falls.
SEED_FPS = [30.0, 25.0, 23.7, 20.0, 19.4, 18.8]


def grid_warps(doc):
    """The warps the grid launches at a bounce, summed over the samples: one a warp tile
    (settings.warp_shape, e.g. 8x4 pixels), the partly padded tiles at the right and
    bottom edges included, so that no bounce can have more live warps. Computed from the
    settings, because records written before the bench counted these tiles give the
    pixels over 32 as their bounces' `warps`, fewer than bounce 0's live warps."""
    s = doc.get("settings", {})
    try:
        tw, th = (int(v) for v in s.get("warp_shape", "8x4").split("x"))
        w, h, spp = int(s["width"]), int(s["height"]), int(s.get("spp", 1))
    except (KeyError, ValueError, TypeError):
        b = next((r.get("bounces") for r in doc.get("results") or [] if r.get("bounces")), None)
        return b[0].get("warps") if b else None
    return -(-w // tw) * -(-h // th) * spp


def seed_line(results):
    """The GTX 560 tracer's FPS by depth, scaled to the stencil's FPS at depth 1, at the
    depths this sweep measured up to its deepest: a line past the last measured depth
    would compare with nothing. [] without a stencil run at depth 1."""
    ref = next((r for r in results if label(r) == "stencil" and r["depth"] == 1), None)
    if not ref:
        return []
    deepest = max(r["depth"] for r in results)
    return [(d, ref["fps"] * f / SEED_FPS[0]) for d, f in enumerate(SEED_FPS, start=1) if d <= deepest]


def plot_data(doc):
    """What the plot draws, without drawing it (--data, and the tests)."""
    results = doc.get("results") or []
    warps = {}
    for r in results:
        m = label(r)
        if "(" in m or not r.get("bounces"):
            continue
        if m not in warps or r["depth"] > warps[m]["depth"]:
            warps[m] = {"depth": r["depth"], "live_warps": [e["live_warps"] for e in r["bounces"]],
                        "live_rays": [e["live_rays"] for e in r["bounces"]]}
    return {"grid_warps": grid_warps(doc), "seed_line": seed_line(results), "deepest": warps}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", help="stencilrt bench --json output")
    ap.add_argument("-o", "--output", help="PNG to write")
    ap.add_argument("--data", action="store_true", help="print what would be drawn, as JSON, and draw nothing")
    ap.add_argument("--dpi", type=int, default=120)
    args = ap.parse_args()
    if not args.data and not args.output:
        ap.error("-o/--output PNG is required (or --data)")

    with open(args.json) as f:
        doc = json.load(f)
    results = doc.get("results") or []
    if not results:
        sys.exit(f"plot_bench.py: {args.json} has no depth-sweep results (was it written by bench --skip or --tune?)")
    if args.data:
        json.dump(plot_data(doc), sys.stdout, indent=1)
        print()
        return 0

    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    modes = []
    for r in results:
        if label(r) not in modes:
            modes.append(label(r))

    fig, (ax_fps, ax_warps) = plt.subplots(1, 2, figsize=(13, 5.2))

    # FPS against depth.
    for m in modes:
        rs = sorted((r for r in results if label(r) == m), key=lambda r: r["depth"])
        depths = [r["depth"] for r in rs]
        fps = [r["fps"] for r in rs]
        # p10/p90 of frame time -> the FPS band (slow frames give the low FPS).
        lo = [1000.0 / r["frame_ms"]["p90"] if r["frame_ms"]["p90"] > 0 else 0 for r in rs]
        hi = [1000.0 / r["frame_ms"]["p10"] if r["frame_ms"]["p10"] > 0 else 0 for r in rs]
        ax_fps.plot(depths, fps, label=m, **style(m))
        ax_fps.fill_between(depths, lo, hi, alpha=0.15, color=style(m).get("color"))
    seed = seed_line(results)
    if seed:
        ax_fps.plot([d for d, _ in seed], [f for _, f in seed], color="grey", linestyle="--", marker=".",
                    label="GTX 560 stencil tracer (2012), scaled to stencil at depth 1")
    ax_fps.set_xlabel("max trace depth (1 = primary rays only)")
    ax_fps.set_ylabel("frames per second (median)")
    ax_fps.set_title("FPS against depth")
    all_depths = sorted({r["depth"] for r in results})
    ax_fps.set_xticks(all_depths)
    ax_fps.set_ylim(bottom=0)
    ax_fps.grid(True, alpha=0.3)
    ax_fps.legend(title="dead-ray mode", fontsize="small")

    # Live warps (and rays) per bounce at each mode's deepest run.
    ax_rays = ax_warps.twinx()
    all_warps = grid_warps(doc)
    for m in modes:
        if "(" in m:
            continue  # the same rays as the graph launches
        deepest = max((r for r in results if label(r) == m), key=lambda r: r["depth"])
        b = deepest.get("bounces") or []
        if not b:
            continue
        x = [e["bounce"] for e in b]
        ax_warps.plot(x, [e["live_warps"] for e in b], label=f"{m}: live warps", **style(m))
        ax_rays.plot(x, [e["live_rays"] for e in b], color=style(m).get("color"), alpha=0.35,
                     linestyle=":", marker=".")
    if all_warps:
        ax_warps.axhline(all_warps, color="grey", linewidth=0.8, linestyle="--")
        ax_warps.annotate("all warps of the grid", (0, all_warps), textcoords="offset points",
                          xytext=(4, 3), fontsize=8, color="grey")
    ax_warps.set_xlabel("bounce (0 = primary rays)")
    ax_warps.set_ylabel("live warps (solid)")
    ax_rays.set_ylabel("live rays (dotted; scale = 32 x warps)")
    # The rays axis is 32 times the warps axis, so where the dotted line meets the
    # solid one every lane of the live warps is busy; the gap is idle lanes.
    top = (all_warps or ax_warps.get_ylim()[1]) * 1.08
    ax_warps.set_ylim(0, top)
    ax_rays.set_ylim(0, top * 32)
    ax_warps.grid(True, alpha=0.3)
    ax_warps.plot([], [], color="grey", linestyle=":", marker=".", alpha=0.6,
                  label="live rays (right axis)")  # legend entry only
    ax_warps.legend(loc="upper right", fontsize=8)
    ax_warps.set_title("live warps and rays per bounce (deepest run)")
    ax_warps.xaxis.get_major_locator().set_params(integer=True)

    s = doc.get("settings", {})
    machine = doc.get("machine", {})
    device = machine.get("gpu", {}).get("name") or machine.get("executor", "?")
    scene = os.path.basename(doc.get("scene", {}).get("name", "?"))
    fig.suptitle(f"stencilrt {doc.get('git_revision', '?')} on {device}: {scene}, "
                 f"{s.get('width')}x{s.get('height')}, {s.get('spp', 1)} spp, "
                 f"{s.get('frames')} frames per point")
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    return 0


if __name__ == "__main__":
    sys.exit(main())
