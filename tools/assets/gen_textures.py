#!/usr/bin/python3
"""Our own texture assets and the scenes and test data that use them (PIL, Debian's
python3-pil; run with /usr/bin/python3). Deterministic: the same bytes every run.

  assets/textures/tiles.png    256x256 RGB tiles with grout (the floor, walls)
  assets/textures/marble.jpg   256x256 JPEG veined stone (spheres, mirrors' frames)
  assets/textures/leaf.png     128x128 RGBA leaf, alpha 0 outside it (cut-out foliage)
  assets/foliage.obj/.mtl      1200 leaf cards around three stems, map_Kd + map_d
  scenes/textured.json         the default scene with a texture on every surface
  scenes/foliage.json          the leaf cards in front of a tiled wall, on a tiled floor
  tests/data/textures/         grid.png (4x4 known texels), grid.jpg, bw.png (black and
                               white columns), mask.png (2x2 holes), quad.obj/.mtl and
                               mask-quad.obj/.mtl (head-on test quads)
"""
import json
import math
import os
import random

from PIL import Image, ImageDraw

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
A = os.path.join(ROOT, "assets")
T = os.path.join(ROOT, "tests", "data", "textures")


def tiles():
    rnd = random.Random(7)
    img = Image.new("RGB", (256, 256))
    px = img.load()
    for y in range(256):
        for x in range(256):
            tx, ty = x // 64, y // 64
            grout = x % 64 < 3 or y % 64 < 3
            base = (200, 120, 80) if (tx + ty) % 2 == 0 else (225, 205, 160)
            n = rnd.randint(-12, 12)
            px[x, y] = (70, 66, 60) if grout else tuple(max(0, min(255, c + n)) for c in base)
    img.save(os.path.join(A, "textures", "tiles.png"), optimize=True)


def marble():
    img = Image.new("RGB", (256, 256))
    px = img.load()
    for y in range(256):
        for x in range(256):
            t = math.sin((x + 40 * math.sin(y / 23.0) + 25 * math.sin((x + y) / 37.0)) / 11.0)
            v = 0.5 + 0.5 * t
            px[x, y] = (int(235 - 90 * v ** 4), int(232 - 100 * v ** 4), int(225 - 70 * v ** 4))
    img.save(os.path.join(A, "textures", "marble.jpg"), quality=90)


def leaf():
    img = Image.new("RGBA", (128, 128), (40, 90, 30, 0))
    d = ImageDraw.Draw(img)
    d.ellipse((20, 6, 108, 122), fill=(60, 140, 45, 255))
    d.ellipse((8, 40, 60, 100), fill=(0, 0, 0, 0))      # bites out of the leaf: holes
    d.ellipse((80, 30, 120, 70), fill=(0, 0, 0, 0))
    d.line((64, 8, 64, 120), fill=(150, 190, 90, 255), width=3)
    img.save(os.path.join(A, "textures", "leaf.png"), optimize=True)


def foliage():
    rnd = random.Random(11)
    v, vt, f = [], [], []
    for stem in (-2.2, 0.0, 2.2):
        for _ in range(400):
            cx, cy, cz = stem + rnd.gauss(0, 0.7), rnd.uniform(0.3, 3.2), rnd.gauss(0, 0.6)
            a, tilt, s = rnd.uniform(0, math.pi), rnd.uniform(-0.6, 0.6), rnd.uniform(0.25, 0.45)
            ux, uz = math.cos(a) * s, math.sin(a) * s
            vy, vz = math.cos(tilt) * s, math.sin(tilt) * s
            base = len(v)
            for (i, j) in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                v.append((cx + i * ux, cy + j * vy, cz + i * uz + j * vz))
            vt.extend([(0, 0), (1, 0), (1, 1), (0, 1)])
            f.append((base + 1, base + 2, base + 3, base + 4))
    with open(os.path.join(A, "foliage.obj"), "w") as o:
        o.write("# 1200 alpha-masked leaf cards (tools/assets/gen_textures.py)\nmtllib foliage.mtl\nusemtl leaf\n")
        for p in v:
            o.write("v %.5f %.5f %.5f\n" % p)
        for t in vt:
            o.write("vt %g %g\n" % t)
        for q in f:
            o.write("f " + " ".join("%d/%d" % (k, k) for k in q) + "\n")
    with open(os.path.join(A, "foliage.mtl"), "w") as o:
        o.write("newmtl leaf\nKd 1 1 1\nmap_Kd textures/leaf.png\nmap_d textures/leaf.png\n")


def scenes():
    with open(os.path.join(ROOT, "scenes", "default.json")) as fh:
        s = json.load(fh)
    m = s["materials"]
    m["floor"]["texture"] = "../assets/textures/tiles.png"
    m["wall_mirror"]["texture"] = "../assets/textures/tiles.png"
    for k in ("chrome", "gold", "red", "blue", "green"):
        m[k]["texture"] = "../assets/textures/marble.jpg"
    for o in s["objects"]:
        if o["type"] == "plane":
            o["texture_size"] = 2.0
        if o["type"] == "triangle":  # the walls: 20 long, 3.6 high; one tile texture per 2 x 2
            ys = [p[1] for p in (o["v0"], o["v1"], o["v2"])]
            o["uv"] = [[p[2] / 2.0, (3.6 - p[1]) / 2.0] for p in (o["v0"], o["v1"], o["v2"])]
    with open(os.path.join(ROOT, "scenes", "textured.json"), "w") as fh:
        fh.write("{\n")
        items = list(s.items())
        for i, (k, val) in enumerate(items):
            sep = "," if i + 1 < len(items) else ""
            if isinstance(val, (dict, list)) and k in ("materials", "objects", "lights"):
                inner = val.items() if isinstance(val, dict) else enumerate(val)
                opener, closer = ("{", "}") if isinstance(val, dict) else ("[", "]")
                fh.write('    "%s": %s\n' % (k, opener))
                rows = list(inner)
                for j, (kk, vv) in enumerate(rows):
                    key = '"%s": ' % kk if isinstance(val, dict) else ""
                    fh.write("        %s%s%s\n" % (key, json.dumps(vv), "," if j + 1 < len(rows) else ""))
                fh.write("    %s%s\n" % (closer, sep))
            else:
                fh.write('    "%s": %s%s\n' % (k, json.dumps(val), sep))
        fh.write("}\n")
    foliage_scene = {
        "camera": {"from": [0.0, 2.0, 7.5], "at": [0.0, 1.6, 0.0], "up": [0, 1, 0], "fov": 60},
        "background": [0.55, 0.65, 0.8],
        "ambient": [0.15, 0.15, 0.17],
        "materials": {"tiles": {"colour": [1, 1, 1], "kd": 0.9, "texture": "../assets/textures/tiles.png"}},
        "lights": [{"type": "directional", "direction": [-0.5, -1.0, -0.6], "colour": [0.9, 0.88, 0.8]}],
        "objects": [
            {"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "tiles", "texture_size": 2.0},
            {"type": "plane", "point": [0, 0, -3], "normal": [0, 0, 1], "material": "tiles", "texture_size": 2.0},
            {"type": "mesh", "file": "../assets/foliage.obj"},
        ],
    }
    with open(os.path.join(ROOT, "scenes", "foliage.json"), "w") as fh:
        fh.write(json.dumps(foliage_scene, indent=4) + "\n")


def test_data():
    # grid.png: 4x4 texels, each its own colour; row 0 is the top.
    cols = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0),
            (255, 0, 255), (0, 255, 255), (255, 255, 255), (0, 0, 0),
            (128, 0, 0), (0, 128, 0), (0, 0, 128), (128, 128, 0),
            (200, 100, 50), (50, 100, 200), (100, 200, 50), (64, 64, 64)]
    g = Image.new("RGB", (4, 4))
    g.putdata(cols)
    g.save(os.path.join(T, "grid.png"))
    g.resize((64, 64), Image.NEAREST).save(os.path.join(T, "grid.jpg"), quality=95)
    bw = Image.new("L", (2, 1))
    bw.putdata([0, 255])
    bw.save(os.path.join(T, "bw.png"))
    mk = Image.new("L", (2, 2))
    mk.putdata([255, 0, 0, 255])  # opaque top-left and bottom-right, holes in between
    mk.save(os.path.join(T, "mask.png"))
    quad = ("v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\n"
            "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf 1/1 2/2 3/3 4/4\n")
    with open(os.path.join(T, "quad.obj"), "w") as o:
        o.write("# a 2x2 quad at z = 0, texture upright (OBJ: v up)\nmtllib quad.mtl\nusemtl grid\n" + quad)
    with open(os.path.join(T, "quad.mtl"), "w") as o:
        o.write("newmtl grid\nKd 1 1 1\nmap_Kd grid.png\n")
    with open(os.path.join(T, "mask-quad.obj"), "w") as o:
        o.write("# the quad with a 2x2 alpha mask\nmtllib mask-quad.mtl\nusemtl masked\n" + quad)
    with open(os.path.join(T, "mask-quad.mtl"), "w") as o:
        o.write("newmtl masked\nKd 0.2 0.8 0.2\nmap_d mask.png\n")


if __name__ == "__main__":
    tiles()
    marble()
    leaf()
    foliage()
    scenes()
    test_data()
