#!/usr/bin/env python3
"""Write a JSON scene that places meshes many times (instances, docs/scene-format.md): a
square grid of COUNT placements over a floor, each of one of the given meshes (in turn),
scaled to about one grid cell, turned about +Y and set on the floor, with a camera
looking over the grid and a light. Run at test or bench time; nothing this large is
committed, and the meshes are referenced, not copied.

    python3 tools/assets/gen_instances.py OUT.json --mesh conference=PATH.obj \\
        [--mesh bunny=PATH.obj ...] [--count 1000] [--seed 1] [--fill 0.8]

`--flatten-instances` on render, view or bench draws the same scene as copies.
Stdlib only and deterministic: the same arguments write the same bytes.
"""
import argparse
import json
import math
import os
import random
import sys


def obj_bounds(path):
    """The box of an OBJ's vertices ('v' lines), without reading faces."""
    lo = [math.inf] * 3
    hi = [-math.inf] * 3
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"v "):
                p = line.split()
                for k in range(3):
                    x = float(p[1 + k])
                    lo[k] = min(lo[k], x)
                    hi[k] = max(hi[k], x)
    if lo[0] > hi[0]:
        sys.exit("gen_instances: %s has no vertices" % path)
    return lo, hi


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--mesh", action="append", required=True, metavar="NAME=PATH.obj",
                    help="a mesh to place (an OBJ; its path is written relative to OUT)")
    ap.add_argument("--count", type=int, default=1000, help="how many placements")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fill", type=float, default=0.8, help="how much of a cell a mesh spans")
    a = ap.parse_args()
    if a.count < 1:
        sys.exit("gen_instances: --count must be at least 1")
    meshes = []
    for m in a.mesh:
        name, sep, path = m.partition("=")
        if not sep or not name or not path:
            sys.exit("gen_instances: --mesh wants NAME=PATH, not '%s'" % m)
        lo, hi = obj_bounds(path)
        meshes.append((name, os.path.abspath(path), lo, hi))
    rng = random.Random(a.seed)
    side = math.ceil(math.sqrt(a.count))
    cell = 10.0
    out_dir = os.path.dirname(os.path.abspath(a.out))
    objects = []
    for i in range(a.count):
        name, _, lo, hi = meshes[i % len(meshes)]
        size = max(hi[k] - lo[k] for k in range(3))
        s = a.fill * cell / size * rng.uniform(0.7, 1.0)
        turn = rng.uniform(0.0, 360.0)
        # The mesh's box centre over the cell's centre, its bottom on the floor (y = 0);
        # the turn about +Y keeps the bottom where it is.
        cx, cz = (i % side + 0.5) * cell, (i // side + 0.5) * cell
        c = [(lo[k] + hi[k]) / 2.0 for k in range(3)]
        r = math.radians(turn)
        # scale, turn about Y, translate: world = R S p + t, so t = target - R S c.
        sx, sz = s * c[0], s * c[2]
        rx = math.cos(r) * sx + math.sin(r) * sz
        rz = -math.sin(r) * sx + math.cos(r) * sz
        t = [cx - rx, -s * lo[1], cz - rz]
        objects.append({"type": "instance", "mesh": name,
                        "transform": {"scale": round(s, 9), "rotate": [0, round(turn, 6), 0],
                                      "translate": [round(v, 9) for v in t]}})
    extent = side * cell
    objects.append({"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "floor"})
    scene = {
        "camera": {"from": [-0.15 * extent, 0.35 * extent, -0.15 * extent],
                   "at": [0.5 * extent, 0.0, 0.5 * extent], "up": [0, 1, 0], "fov": 60},
        "background": [0.55, 0.65, 0.8],
        "materials": {"floor": {"colour": [0.5, 0.5, 0.5], "kd": 0.8}},
        "meshes": {name: {"file": os.path.relpath(path, out_dir)} for name, path, _, _ in meshes},
        "lights": [{"type": "directional", "direction": [0.4, -1.0, 0.3], "colour": [1, 1, 1]}],
        "objects": objects,
    }
    # One line a key, and one an object: readable, and small at thousands of objects.
    with open(a.out, "w") as f:
        objs = scene.pop("objects")
        f.write("{\n")
        for k, v in scene.items():
            f.write(" %s: %s,\n" % (json.dumps(k), json.dumps(v)))
        f.write(' "objects": [\n')
        f.write(",\n".join("  " + json.dumps(o) for o in objs))
        f.write("\n ]\n}\n")


if __name__ == "__main__":
    main()
