#!/usr/bin/env python3
"""The tables of docs/performance.md and the README, from one run of `tools/gpu/run.sh perf`.

usage: perf_tables.py DIR                  print every table
       perf_tables.py DIR --update FILE... rewrite each block of FILE between
                                           <!-- perf:NAME --> and <!-- /perf --> with table NAME

DIR holds the suite's JSONs (default.json, conference.json, spp16.json, skip.json, ...).
A block whose data is missing from DIR is left as it is, with a warning.
"""
import json
import os
import re
import sys

# FPS at depths 1..6 of the GTX 560 stencil tracer (seed 004: the 2012 Habr article "a
# stencil buffer in CUDA"), beside ours in the tables.
SEED_FPS = [30.0, 25.0, 23.7, 20.0, 19.4, 18.8]
MODES = ["stencil", "flags", "compact", "pool", "megakernel", "regenerate"]


def load(d, name):
    p = os.path.join(d, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else None


def label(r):
    launch = r.get("launch", "graph")
    return r["mode"] if launch == "graph" else f"{r['mode']} ({launch})"


def index(doc):
    return {(label(r), r["depth"]): r for r in doc["results"]}


def modes_of(doc):
    return list(dict.fromkeys(label(r) for r in doc["results"]))


def ms(r):
    return r["frame_ms"]["median"]


def table(head, rows, align=None):
    align = align or ["---"] + ["---:"] * (len(head) - 1)
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def frame_line(doc):
    s = doc["settings"]
    return f"{s['width']}x{s['height']}, {s['spp']} spp, median of {doc['results'][0]['frames']} frames"


def best(by, modes, d):
    return min((m for m in modes if (m, d) in by), key=lambda m: ms(by[(m, d)]))


# --- the blocks -------------------------------------------------------------------------

def headline(d):
    """The README's table: FPS by mode, default scene and Conference (BVH8) at 1080p."""
    a, c = load(d, "default"), load(d, "conference")
    if not a or not c:
        return None
    ba, bc = index(a), index(c)
    rows = []
    for m in MODES:
        cells = [f"`{m}`"]
        for by, depth in ((ba, 1), (ba, 2), (ba, 8), (bc, 1), (bc, 2)):
            r = by.get((m, depth))
            cells.append(f"{r['fps']:,.0f}" if r else "-")
        rows.append(cells)
    return table(["mode", "default, depth 1", "depth 2", "depth 8", "Conference, depth 1", "depth 2"], rows,
                 ["---"] + ["---:"] * 5)


def strategies(d):
    """Every mode at 1080p and 4K on both scenes: ms, FPS, SIMD; the fastest in bold."""
    out = []
    for name, title in (("default", "Default scene"), ("default-4k", "Default scene"),
                        ("conference", "Conference (BVH8)"), ("conference-4k", "Conference (BVH8)")):
        doc = load(d, name)
        if not doc:
            continue
        by = index(doc)
        depths = [x for x in sorted({r["depth"] for r in doc["results"]}) if x in (1, 2, 4, 8, 12)]
        modes = [m for m in MODES if (m, depths[0]) in by]
        rows = []
        for m in modes:
            cells = [f"`{m}`"]
            for dep in depths:
                r = by[(m, dep)]
                cell = f"{ms(r):.3f} ms, {r['fps']:,.0f}"
                cells.append(f"**{cell}**" if best(by, modes, dep) == m else cell)
            cells.append(f"{100 * by[(m, depths[-1])]['simd_efficiency']:.1f}%")
            rows.append(cells)
        out.append(f"*{title}, {frame_line(doc)}* (frame ms and FPS; SIMD efficiency at depth {depths[-1]}):\n")
        out.append(table(["mode"] + [f"depth {x}" for x in depths] + ["SIMD"], rows) + "\n")
    return "\n".join(out).rstrip() if out else None


def spp16(d):
    doc = load(d, "spp16")
    if not doc:
        return None
    by = index(doc)
    rows = []
    for m in modes_of(doc):
        for dep in sorted({r["depth"] for r in doc["results"]}):
            r = by[(m, dep)]
            rows.append([f"`{m}`", dep, f"{ms(r):.3f}", f"{r['fps']:,.0f}", f"{100 * r['simd_efficiency']:.1f}%"])
    return f"*{frame_line(doc)}:*\n\n" + table(["mode", "depth", "ms", "FPS", "SIMD efficiency"], rows)


def sweep(d, name="default"):
    doc = load(d, name)
    if not doc:
        return None
    by, modes = index(doc), modes_of(doc)
    depths = sorted({r["depth"] for r in doc["results"]})
    rows = [[dep] + [f"{by[(m, dep)]['fps']:,.0f}" if (m, dep) in by else "" for m in modes] for dep in depths]
    return f"*{frame_line(doc)}; FPS:*\n\n" + table(["depth"] + modes, rows)


def live(d):
    doc = load(d, "default")
    if not doc:
        return None
    by = index(doc)
    deepest = max(r["depth"] for r in doc["results"])
    modes = [m for m in MODES if (m, deepest) in by]
    nb = max(len(by[(m, deepest)]["bounces"]) for m in modes)
    rows = []
    for b in range(nb):
        cells = [b]
        for m in modes:
            bs = by[(m, deepest)]["bounces"]
            cells += [f"{bs[b]['live_rays']:,}", f"{bs[b]['live_warps']:,}"] if b < len(bs) else ["", ""]
        rows.append(cells)
    head = ["bounce"] + [x for m in modes for x in (f"{m} rays", "warps")]
    return table(head, rows)


def seed(d):
    doc = load(d, "default")
    if not doc:
        return None
    by = index(doc)
    shown = [x for x in sorted({r["depth"] for r in doc["results"]}) if x <= 6]
    rows = [[f"`{m}`"] + [f"{by[(m, x)]['fps'] / by[(m, 1)]['fps']:.2f}" for x in shown]
            for m in MODES if (m, 1) in by]
    rows.append(["GTX 560 stencil tracer (2012)"] + [f"{SEED_FPS[x - 1] / SEED_FPS[0]:.2f}" for x in shown])
    return table(["FPS / FPS at depth 1"] + [str(x) for x in shown], rows)


def dead_bounce(d):
    doc = load(d, "default")
    if not doc or not doc.get("dead_bounce"):
        return None
    rows = []
    for c in doc["dead_bounce"]:
        rows.append([f"`{c['mode']}`", c["launch"], f"{c['from_depth']}..{c['to_depth']}" if c["ok"] else "-",
                     f"{c['us_per_bounce']:.1f}" if c["ok"] else "-",
                     f"{c['fps_ratio_d12']:.2f}" if c.get("fps_ratio_d12") else "-"])
    return table(["mode", "launch", "depths", "µs per bounce", "FPS depth 12 / depth 1"], rows,
                 ["---", "---", "---", "---:", "---:"])


def sizes(d):
    rows = []
    for name in ("default", "default-4k", "default-8k"):
        doc = load(d, name)
        if not doc:
            continue
        by = {label(r): ms(r) for r in doc["results"] if r["depth"] == 8}
        s = doc["settings"]
        cells = [f"{s['width']}x{s['height']}"] + [f"{by[m]:.3f}" if m in by else "-" for m in ("stencil", "flags", "megakernel")]
        cells.append(f"{by['stencil'] / by['flags']:.2f}" if "stencil" in by and "flags" in by else "-")
        rows.append(cells)
    return table(["size", "stencil ms", "flags ms", "megakernel ms", "stencil / flags"], rows) if rows else None


def warp_shape(d):
    a, b = load(d, "default"), load(d, "default-32x1")
    if not a or not b:
        return None
    rows = []
    for name, doc in (("8x4 (default)", a), ("32x1", b)):
        by = index(doc)
        r = by.get(("stencil", 8))
        if r and len(r["bounces"]) > 2:
            rows.append([name, f"{r['fps']:,.0f}", f"{r['bounces'][2]['live_warps']:,}",
                         f"{100 * r['bounces'][2]['simd_efficiency']:.0f}%"])
    return table(["warp tile", "FPS, depth 8", "live warps at bounce 2", "SIMD at bounce 2"], rows)


def tuning(d):
    a, b = load(d, "default"), load(d, "default-tuned")
    if not a or not b:
        return None
    ba, bb = index(a), index(b)
    rows = []
    for m in MODES:
        for dep in (1, 8):
            if (m, dep) in ba and (m, dep) in bb:
                x, y = ms(ba[(m, dep)]), ms(bb[(m, dep)])
                rows.append([f"`{m}`", dep, f"{x:.3f}", f"{y:.3f}", f"{100 * (x - y) / x:+.1f}%"])
    return table(["mode", "depth", "default ms", "tuned ms", "gain"], rows)


def skip(d, name):
    doc = load(d, name)
    if not doc:
        return None
    sk = doc["skip"]
    rows = [[r["mode"], r["pattern"], f"{r['live_fraction'] * 100:g}%", f"{r['median_ms'] * 1000:.1f}",
             f"{r['median_ms'] / sk['empty_ms']:.2f}", f"{r['dead_rays'] / (r['median_ms'] * 1e-3) * 1e-9:.0f}"]
            for r in sk["results"]]
    return (f"*{sk['rays']:,} rays a launch, median of {sk['iterations']} launches; an empty kernel over all of "
            f"them: {sk['empty_ms'] * 1000:.1f} µs*\n\n" +
            table(["mode", "pattern", "live", "µs", "× empty kernel", "G dead rays/s"], rows,
                  ["---", "---", "---:", "---:", "---:", "---:"]))


def machine(d):
    doc = load(d, "default")
    if not doc:
        return None
    m = doc["machine"]
    g = m.get("gpu", {}) if isinstance(m.get("gpu"), dict) else {}
    rev = doc.get("git_revision", "?")
    name = g.get("name") or m.get("executor", "?")
    return (f"Measured on {name}, stencilrt {rev}, {doc.get('date', '?')}: "
            "`tools/gpu/run.sh perf`, then `tools/bench/perf_tables.py DIR --update docs/performance.md README.md`.")


BLOCKS = {
    "machine": machine, "headline": headline, "strategies": strategies, "spp16": spp16,
    "sweep": sweep, "live": live, "seed": seed, "dead-bounce": dead_bounce, "sizes": sizes,
    "conference-sweep": lambda d: sweep(d, "conference"), "warp-shape": warp_shape, "tuning": tuning,
    "skip": lambda d: skip(d, "skip"), "skip-1080p": lambda d: skip(d, "skip-1080p"),
}


def update(d, path):
    text = open(path).read()

    def repl(m):
        name = m.group(1)
        fn = BLOCKS.get(name)
        body = fn(d) if fn else None
        if body is None:
            print(f"{path}: block '{name}': no data in {d}, left as it was", file=sys.stderr)
            return m.group(0)
        return f"<!-- perf:{name} -->\n{body}\n<!-- /perf -->"

    new = re.sub(r"<!-- perf:([a-z0-9-]+) -->\n.*?<!-- /perf -->", repl, text, flags=re.S)
    open(path, "w").write(new)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] == "--update":
        for p in sys.argv[3:]:
            update(d, p)
        return
    for name, fn in BLOCKS.items():
        body = fn(d)
        if body:
            print(f"### {name}\n\n{body}\n")


if __name__ == "__main__":
    main()
