#!/usr/bin/env python3
"""Where a path kernel's instructions go: Nsight Compute's per-instruction counts joined
to the source file each instruction came from (tools/gpu/suites/budget.sh).

  budget.py SASS_CSV DISASM STATS_JSON [--title T] [--json OUT]

SASS_CSV   `ncu -i REP --page source --csv --print-source sass`: one row per machine
           instruction of the kernel (and of the functions it calls), with its address,
           its text, the warp-level instructions executed and the stall samples.
DISASM     `nvdisasm -gi -c` of the kernel and its callees: each instruction under the
           `//## File "...", line N inlined at ...` comment that names the innermost
           source line it came from, and the chain of calls it was inlined through.
STATS_JSON the same frame's `render --stats-json`: the path vertices (live rays summed
           over bounces) and the shadow rays, to say instructions per vertex (or the
           vertices, a number).

Each instruction goes to a part of the vertex by the first file in its inline chain,
innermost first, that owns a part (PARTS below); helpers (GLM, sampling.h's warps and
portable maths, core/) count for the part that called them. Pure Python, no numpy: it
runs on the GPU machine.
"""
import argparse
import csv
import io
import json
import re
import sys

# (part, file patterns), first match wins, tried on each file of the chain from the inside out.
PARTS = [
    ("traversal", [r"accel/traverse_", r"accel/traversal_", r"accel/intersect\.h", r"accel/prim_hits\.h", r"accel/bvh"]),
    ("random numbers", [r"render/sampler\.h", r"render/sobol\.h", r"render/rng\.h", r"Random123/", r"core/hash\.h"]),
    ("BSDF", [r"render/bsdf\.h"]),
    ("light sampling", [r"render/lights\.h"]),
    ("hit point, surface, textures", [r"accel/hit_point\.h", r"render/surface\.h", r"accel/texture\.h"]),
    ("path vertex (MIS, roulette, throughput)", [r"render/path_vertex\.h"]),
    ("bookkeeping (kernel loop, stages, film)", [r"cuda/", r"render/stages\.h", r"render/frame\.h", r"render/stencil\.h"]),
]
HELPERS = [r"glm/", r"render/sampling\.h", r"core/", r"cuda/include", r"crt/", r"/usr/"]
OTHER = "other"

FILE_RE = re.compile(r'"([^"]+)", line (\d+)')
INSTR_RE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
SECTION_RE = re.compile(r"\.text\.([A-Za-z0-9_$.]+)")


def part_of(chain):
    for path, _ in chain:
        for name, pats in PARTS:
            if any(re.search(p, path) for p in pats):
                return name
    return OTHER if chain else "no line info"


def opcode(text):
    t = text.strip()
    t = re.sub(r"^@!?U?P[T0-9]+\s+", "", t)
    return t.split()[0].split(".")[0] if t else ""


def read_disasm(path):
    """{function: [(offset, opcode, chain)]} from nvdisasm -gi -c."""
    # An instruction's chain is printed as consecutive comment lines, innermost first,
    # each "File A, line N inlined at B, line M"; the next instruction's starts afresh.
    funcs, cur, chain, fresh = {}, None, [], True
    with open(path, errors="replace") as f:
        for line in f:
            m = SECTION_RE.search(line)
            if m and (".section" in line or line.startswith(".text.")):
                cur = m.group(1).rstrip(":")
                funcs.setdefault(cur, [])
                chain, fresh = [], True
                continue
            if "//##" in line:
                found = [(p, int(n)) for p, n in FILE_RE.findall(line)]
                if fresh:
                    chain, fresh = [], False
                for e in found:
                    if e not in chain:
                        chain.append(e)
                continue
            m = INSTR_RE.search(line)
            if m and cur is not None:
                funcs[cur].append((int(m.group(1), 16), opcode(m.group(2)), chain))
                fresh = True
    return {k: v for k, v in funcs.items() if v}


def read_sass_csv(path):
    """[(address, opcode, executed, stall samples, of which waiting for an instruction
    fetch)] from ncu's source page."""
    text = open(path, errors="replace").read()
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if "Address" in l and "Source" in l), None)
    if start is None:
        sys.exit(f"{path}: no header with Address and Source; first lines:\n" + "\n".join(lines[:8]))
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    head = [h.strip().lstrip("#").strip() for h in rows[0]]

    def col(*keys, exclude=()):
        for i, h in enumerate(head):
            if all(k.lower() in h.lower() for k in keys) and not any(x.lower() in h.lower() for x in exclude):
                return i
        return None

    ia, isrc = col("Address"), col("Source")
    iex = col("Instructions Executed", exclude=("Thread", "Predicated"))
    iall = col("Warp Stall Sampling", "All")
    inoinst = col("stall_no_inst", exclude=("Not Issued",))
    inot = col("Warp Stall Sampling", "Not")
    if iex is None:
        sys.exit(f"{path}: no 'Instructions Executed' column in {head}")

    def num(r, i):
        if i is None or i >= len(r):
            return 0.0
        try:
            return float(r[i].replace(",", "") or 0)
        except ValueError:
            return 0.0

    out = []
    for r in rows[1:]:
        if len(r) <= max(ia, isrc, iex):
            continue
        try:
            addr = int(r[ia].strip(), 16)
        except ValueError:
            continue
        out.append((addr, opcode(r[isrc]), num(r, iex), num(r, iall), num(r, inoinst)))
    return out, head


def segments(rows):
    """The listing cut where addresses stop following each other: one piece per function."""
    segs, cur = [], []
    for r in rows:
        if cur and r[0] != cur[-1][0] + 16:
            segs.append(cur)
            cur = []
        cur.append(r)
    if cur:
        segs.append(cur)
    return segs


def match(seg, funcs):
    """The disassembled function whose opcodes this piece of the listing is."""
    best, score = None, -1.0
    for name, ins in funcs.items():
        if len(ins) < len(seg):
            continue
        base = seg[0][0] - ins[0][0] if seg[0][0] >= ins[0][0] else 0
        by_off = {o: (op, ch) for o, op, ch in ins}
        ok = sum(1 for r in seg if by_off.get(r[0] - base, ("", None))[0] == r[1])
        s = ok / len(seg)
        if s > score:
            best, score, bbase = name, s, base
    return (best, score, bbase) if best else (None, 0.0, 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sass_csv")
    ap.add_argument("disasm")
    ap.add_argument("stats_json")
    ap.add_argument("--title", default="")
    ap.add_argument("--json")
    a = ap.parse_args()
    funcs = read_disasm(a.disasm)
    if not funcs:
        sys.exit(f"{a.disasm}: no instructions")
    rows, _ = read_sass_csv(a.sass_csv)
    if a.stats_json.isdigit():  # the vertices, counted elsewhere
        vertices, shadow = int(a.stats_json), 0
    else:
        stats = json.load(open(a.stats_json))["frames"][0]
        vertices = sum(b["live_rays"] for b in stats["bounces"])
        shadow = sum(b.get("shadow_rays", 0) for b in stats["bounces"])

    parts, static, matched = {}, {}, 0
    for seg in segments(rows):
        name, score, base = match(seg, funcs)
        by_off = {o: ch for o, _, ch in funcs[name]} if name else {}
        if score >= 0.95:
            matched += len(seg)
        for addr, op, ex, st_all, st_not in seg:
            p = part_of(by_off.get(addr - base, [])) if score >= 0.95 else "unmatched"
            e = parts.setdefault(p, [0.0, 0.0, 0.0])
            e[0] += ex
            e[1] += st_all
            e[2] += st_not
            static[p] = static.get(p, 0) + 1
    tot = [sum(v[i] for v in parts.values()) or 1.0 for i in range(3)]
    print(f"## {a.title}: {len(rows)} instructions in the listing ({matched} matched to source), "
          f"{vertices} path vertices, {shadow} shadow rays")
    print(f"{'part':42s} {'static':>7s} {'warp instr':>12s} {'%':>6s} {'per vertex':>11s} {'stall %':>8s} {'no-inst %':>9s}")
    out = {}
    for p, (ex, sa, sn) in sorted(parts.items(), key=lambda kv: -kv[1][0]):
        # Warp-level instructions over vertices: what one vertex costs its warp, amortised.
        per_vertex = ex * 32.0 / vertices if vertices else 0.0
        print(f"{p:42s} {static[p]:7d} {ex:12.0f} {100 * ex / tot[0]:6.1f} {per_vertex:11.1f} {100 * sa / tot[1]:8.1f}"
              f" {100 * sn / tot[2]:9.1f}")
        out[p] = {"static": static[p], "warp_instructions": ex, "per_vertex_thread_slots": per_vertex,
                  "stall_samples": sa, "stall_no_instruction": sn}
    print(f"{'total':42s} {sum(static.values()):7d} {tot[0]:12.0f} {100.0:6.1f} "
          f"{tot[0] * 32.0 / vertices if vertices else 0:11.1f} {100.0:8.1f} {100.0:9.1f}")
    print(f"stall samples waiting for an instruction fetch: {100 * tot[2] / tot[1]:.1f}% of all")
    if a.json:
        json.dump({"title": a.title, "vertices": vertices, "shadow_rays": shadow, "parts": out}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
