#!/usr/bin/env python3
"""Writes the contact scenes of tests/data/contact/: mirror spheres resting on things, where
rays are caught in the thin wedges between touching surfaces (the hard case for float hit
points and ray offsets; tests/test_contacts.cpp renders them against a double-precision
reference).

    python3 tools/assets/gen_contact_scenes.py [--out tests/data/contact]

  big-sphere.json   a pyramid of mirror spheres (radius 0.5, three layers) and a ring of
                    small ones (radius 0.2) on a mirror ground sphere of radius 1000
  plane.json        the same on a checkered mirror plane
  mesh.json         the same on a mirror ground of two big triangles
  touching.json     the pyramid alone, no ground
  corner.json       a mirror sphere touching three mirror planes in a corner
  rtow.json         "Ray Tracing in One Weekend"'s final layout as mirrors: a grid of
                    spheres of radius 0.2 on a ground sphere of radius 1000
"""
import argparse
import json
import math
import os
import random

R_BIG = 1000.0
MATERIALS = {
    "ground": {"colour": [0.5, 0.5, 0.5], "kd": 0.1, "kr": 0.8},
    "chrome": {"colour": [1, 1, 1], "kd": 0.02, "kr": 0.92},
    "gold": {"colour": [0.9, 0.75, 0.4], "kd": 0.1, "kr": [0.95, 0.8, 0.45]},
    "rose": {"colour": [0.9, 0.5, 0.5], "kd": 0.1, "kr": [0.9, 0.55, 0.55]},
    "teal": {"colour": [0.3, 0.8, 0.8], "kd": 0.1, "kr": [0.4, 0.85, 0.85]},
    "matte": {"colour": [0.8, 0.3, 0.2], "kd": 0.9},
}
LOOKS = ["chrome", "gold", "rose", "teal"]


def num(x):
    return float(f"{x:.9g}")


def sphere(c, r, m):
    return {"type": "sphere", "centre": [num(v) for v in c], "radius": num(r), "material": m}


def on_ground(x, z, r, ground):
    """The height of a sphere of radius r resting on the ground at (x, z)."""
    if ground == "sphere":
        return math.sqrt((R_BIG + r) ** 2 - x * x - z * z) - R_BIG
    return r


def pyramid(ground, r=0.5):
    out, bottom = [], []
    for i in range(3):
        for j in range(3):
            x, z = (i - 1) * 2 * r, (j - 1) * 2 * r
            y = on_ground(x, z, r, ground) if ground else r
            bottom.append((x, y, z))
            out.append(sphere((x, y, z), r, LOOKS[(i + j) % 4]))
    middle = []
    for i in range(2):
        for j in range(2):
            x, z = (i - 0.5) * 2 * r, (j - 0.5) * 2 * r
            # resting on the bottom layer: 2r from the highest of the four below
            y = max(b[1] + math.sqrt(max(0.0, 4 * r * r - (x - b[0]) ** 2 - (z - b[2]) ** 2))
                    for b in bottom if abs(b[0] - x) <= r + 1e-9 and abs(b[2] - z) <= r + 1e-9)
            middle.append((x, y, z))
            out.append(sphere((x, y, z), r, LOOKS[(i + j + 1) % 4]))
    y = max(m[1] + math.sqrt(max(0.0, 4 * r * r - m[0] ** 2 - m[2] ** 2)) for m in middle)
    out.append(sphere((0, y, 0), r, "chrome"))
    return out


def ring(ground, n=12, rad=2.4, r=0.2):
    out = []
    for k in range(n):
        a = 2 * math.pi * k / n
        x, z = rad * math.cos(a), rad * math.sin(a)
        out.append(sphere((x, on_ground(x, z, r, ground), z), r, "matte" if k % 3 == 0 else LOOKS[k % 4]))
    return out


def scene(objects, camera, lights=None):
    return {
        "camera": camera,
        "background": [0.55, 0.7, 0.95],
        "ambient": [0.05, 0.05, 0.06],
        "materials": MATERIALS,
        "lights": lights or [{"type": "point", "position": [4, 7, 5], "colour": [0.9, 0.88, 0.82]}],
        "objects": objects,
    }


CAM = {"from": [6.0, 2.3, 4.5], "at": [0, 0.55, 0], "up": [0, 1, 0], "fov": 42}


def rtow():
    rnd = random.Random(4)
    objs = [sphere((0, -R_BIG, 0), R_BIG, "ground")]
    for a in range(-11, 11):
        for b in range(-11, 11):
            x, z = a + 0.9 * rnd.random(), b + 0.9 * rnd.random()
            objs.append(sphere((x, on_ground(x, z, 0.2, "sphere"), z), 0.2, LOOKS[rnd.randrange(4)]))
    for x, m in ((-4, "gold"), (0, "chrome"), (4, "rose")):
        objs.append(sphere((x, on_ground(x, 0, 1.0, "sphere"), 0), 1.0, m))
    return scene(objs, {"from": [13, 2, 3], "at": [0, 0, 0], "up": [0, 1, 0], "fov": 20})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/data/contact")
    out = ap.parse_args().out
    os.makedirs(out, exist_ok=True)
    big_ground = sphere((0, -R_BIG, 0), R_BIG, "ground")
    plane = {"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "ground",
             "checker": {"colour": [0.25, 0.25, 0.3], "size": 0.5}}
    tris = [{"type": "triangle", "v0": [-20, 0, -20], "v1": [20, 0, 20], "v2": [20, 0, -20], "material": "ground"},
            {"type": "triangle", "v0": [-20, 0, -20], "v1": [-20, 0, 20], "v2": [20, 0, 20], "material": "ground"}]
    scenes = {
        "big-sphere": scene([big_ground] + pyramid("sphere") + ring("sphere"), CAM),
        "plane": scene([plane] + pyramid("plane") + ring("plane"), CAM),
        "mesh": scene(tris + pyramid("plane") + ring("plane"), CAM),
        "touching": scene(pyramid(None), CAM),
        "corner": scene([{"type": "plane", "point": [0, 0, 0], "normal": n, "material": "ground"}
                         for n in ([1, 0, 0], [0, 1, 0], [0, 0, 1])] +
                        [sphere((0.5, 0.5, 0.5), 0.5, "chrome"), sphere((1.2, 0.2, 0.35), 0.2, "matte"),
                         sphere((0.3, 0.15, 1.15), 0.15, "gold")],
                        {"from": [3.2, 2.4, 3.0], "at": [0.4, 0.35, 0.4], "up": [0, 1, 0], "fov": 40},
                        [{"type": "point", "position": [3, 4, 2], "colour": [0.9, 0.88, 0.82]}]),
        "rtow": rtow(),
    }
    for name, sc in scenes.items():
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(sc, f, indent=1)
            f.write("\n")
        print(f"{out}/{name}.json: {len(sc['objects'])} objects")


if __name__ == "__main__":
    main()
