#!/usr/bin/python3
"""Our own texture assets and the scenes and test data that use them (PIL, Debian's
python3-pil; run with /usr/bin/python3). Deterministic: the same bytes every run.

  assets/textures/tiles.png    256x256 RGB tiles with grout (the floor, walls)
  assets/textures/marble.jpg   256x256 JPEG veined stone (spheres, mirrors' frames)
  assets/textures/leaf.png     128x128 RGBA leaf, alpha 0 outside it (cut-out foliage)
  assets/textures/floor-mr.png 128x128 metallic-roughness map, glTF's layout (G rough,
                               B metal): metal tiles of four roughnesses, rough grout
  assets/textures/floor-normal.png 128x128 normal map: the same tiles, bevelled
  assets/foliage.obj/.mtl      1200 leaf cards around three stems, map_Kd + map_d
  scenes/textured.json         the default scene with a texture on every surface
  scenes/foliage.json          the leaf cards in front of a tiled wall, on a tiled floor
  tests/data/textures/         grid.png (4x4 known texels), grid.jpg, bw.png (black and
                               white columns), mask.png (2x2 holes), quad.obj/.mtl and
                               mask-quad.obj/.mtl (head-on test quads), quad.gltf and
                               mask-quad.gltf (the same in glTF: v down, alphaMode MASK),
                               orm.png (8x2: R 128, G 255, B 0 in the left half and 255
                               in the right), orm-quad.gltf (its metallicRoughnessTexture)
                               and orm-quad.obj/.mtl (its map_Pm and map_Pr),
                               normal-flat.png (4x4 of 128, 128, 255: no tilt) and
                               normal-bump.png (16x16, a known tilt in x and y), on
                               normal-quad.gltf (no TANGENT), normal-quad-tangents.gltf
                               (TANGENT, mirrored by its node) and normal-quad.obj/.mtl
                               (norm -bm 0.5)
  tests/data/bad/gltf_tex_*, obj_map_*, json_tex_*: malformed textured files for the
                               parser table (tests/test_parsers.cpp)
"""
import base64
import struct
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


def floor_mr():
    # 4x4 tiles of 32 texels: metal (B 255) of roughness 0.15, 0.3, 0.45 or 0.6 (G), in a
    # pattern that repeats every 2 tiles, between 3-texel joints of rough non-metal grout.
    im = Image.new("RGB", (128, 128))
    px = im.load()
    rough = [[38, 77], [115, 153]]
    for y in range(128):
        for x in range(128):
            tx, ty, gx, gy = x // 32, y // 32, x % 32, y % 32
            if gx < 3 or gy < 3:
                px[x, y] = (255, 230, 0)
            else:
                px[x, y] = (255, rough[ty % 2][tx % 2], 255)
    im.save(os.path.join(A, "textures", "floor-mr.png"))


def floor_normal():
    # floor-mr.png's tiles bevelled: over the 4 texels inside each joint the tile's top
    # slopes down to the grout (a tilt of 0.6 towards the joint), the grout and the tile's
    # face flat. x tilts right, y up the image (glTF's convention), stored as 128 + 127 c.
    im = Image.new("RGB", (128, 128))
    px = im.load()
    for y in range(128):
        for x in range(128):
            gx, gy = x % 32, y % 32
            tx = ty = 0.0
            if gx >= 3 and gy >= 3:
                if gx < 7: tx = -0.6
                elif gx >= 28: tx = 0.6
                if gy < 7: ty = 0.6
                elif gy >= 28: ty = -0.6
            n = (tx, ty, 1.0)
            length = math.sqrt(sum(c * c for c in n))
            px[x, y] = tuple(int(round(128 + 127 * c / length)) for c in n)
    im.save(os.path.join(A, "textures", "floor-normal.png"), optimize=True)


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
    orm = Image.new("RGB", (8, 2))
    orm.putdata([(128, 255, 0)] * 4 + [(128, 255, 255)] * 4 + [(128, 255, 0)] * 4 + [(128, 255, 255)] * 4)
    orm.save(os.path.join(T, "orm.png"))
    with open(os.path.join(T, "orm-quad.obj"), "w") as o:
        o.write("# the quad with maps of metallic and roughness\nmtllib orm-quad.mtl\nusemtl orm\n" + quad)
    with open(os.path.join(T, "orm-quad.mtl"), "w") as o:
        o.write("newmtl orm\nKd 1 0.78 0.34\nPm 1\nPr 0.5\nmap_Pm -clamp on -imfchan b orm.png\n"
                "map_Pr -clamp on -imfchan g orm.png\n")
    Image.new("RGB", (4, 4), (128, 128, 255)).save(os.path.join(T, "normal-flat.png"))
    nb = Image.new("RGB", (16, 16))
    nb.putdata([normal_bump_texel(i, j) for j in range(16) for i in range(16)])
    nb.save(os.path.join(T, "normal-bump.png"))
    with open(os.path.join(T, "normal-quad.obj"), "w") as o:
        o.write("# the quad with a normal map\nmtllib normal-quad.mtl\nusemtl bumpy\n" + quad)
    with open(os.path.join(T, "normal-quad.mtl"), "w") as o:
        o.write("newmtl bumpy\nKd 0.8 0.8 0.8\nnorm -bm 0.5 normal-bump.png\n")


def normal_bump_texel(i, j):
    """Texel (i, j) of normal-bump.png: a tangent-space normal tilted by 0.5 sin along x and
    0.3 cos along y, each component c stored as 128 + 127 c (the signed decoding)."""
    x = 0.5 * math.sin(2 * math.pi * (i + 0.5) / 16)
    y = 0.3 * math.cos(2 * math.pi * (j + 0.5) / 16)
    z = math.sqrt(1 - x * x - y * y)
    return tuple(int(round(128 + 127 * c)) for c in (x, y, z))


def gltf_quad(texture_uri, extra_material=None, sampler=None, uv=None, extra=None):
    """A 2x2 quad at z = 0 facing +z, uv (0,0) at its top-left corner (glTF: v down)."""
    pos = [(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)]
    uv = uv or [(0, 1), (1, 1), (1, 0), (0, 0)]
    idx = [0, 1, 2, 0, 2, 3]
    blob = b"".join(struct.pack("<3f", *p) for p in pos) + b"".join(struct.pack("<2f", *t) for t in uv) + \
        struct.pack("<6H", *idx)
    mat = {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicFactor": 0, "roughnessFactor": 1}}
    mat.update(extra_material or {})
    g = {
        "asset": {"version": "2.0"},
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
        "materials": [mat],
        "textures": [{"source": 0, "sampler": 0}],
        "samplers": [sampler or {}],
        "images": [{"uri": texture_uri}],
        "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," +
                     base64.b64encode(blob).decode()}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                        {"buffer": 0, "byteOffset": 48, "byteLength": 32},
                        {"buffer": 0, "byteOffset": 80, "byteLength": 12}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-1, -1, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}],
    }
    g.update(extra or {})
    return g


def write_json(path, obj):
    with open(path, "w") as fh:
        fh.write(json.dumps(obj, indent=1) + "\n")


def gltf_data():
    write_json(os.path.join(T, "quad.gltf"), gltf_quad("grid.png"))
    write_json(os.path.join(T, "orm-quad.gltf"),
               gltf_quad("orm.png", {"pbrMetallicRoughness": {"baseColorFactor": [1, 0.78, 0.34, 1],
                                                             "metallicRoughnessTexture": {"index": 0},
                                                             "metallicFactor": 1, "roughnessFactor": 0.5}},
                         sampler={"wrapS": 33071, "wrapT": 33071}))
    bumpy = {"pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.8, 0.8, 1], "metallicFactor": 0, "roughnessFactor": 1},
             "normalTexture": {"index": 0, "scale": 1.0}}
    q = gltf_quad("normal-bump.png", bumpy)
    write_json(os.path.join(T, "normal-quad.gltf"), q)
    # The same with NORMAL and TANGENT (+z and +x: u right, the image's up +y), under a
    # node that mirrors x: the handedness must turn over with it.
    blob = base64.b64decode(q["buffers"][0]["uri"].split(",")[1])
    extra = b"".join(struct.pack("<3f", 0, 0, 1) for _ in range(4)) + b"".join(struct.pack("<4f", 1, 0, 0, 1) for _ in range(4))
    blob += b"\0" * ((4 - len(blob) % 4) % 4)
    off = len(blob)
    blob += extra
    q["buffers"][0] = {"byteLength": len(blob), "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}
    q["bufferViews"] += [{"buffer": 0, "byteOffset": off, "byteLength": 48}, {"buffer": 0, "byteOffset": off + 48, "byteLength": 64}]
    q["accessors"] += [{"bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC3"},
                       {"bufferView": 4, "componentType": 5126, "count": 4, "type": "VEC4"}]
    q["meshes"][0]["primitives"][0]["attributes"].update({"NORMAL": 3, "TANGENT": 4})
    q["nodes"][0]["scale"] = [-1, 1, 1]
    write_json(os.path.join(T, "normal-quad-tangents.gltf"), q)
    # RGBA: the mask's alpha, the grid's colours.
    g = Image.open(os.path.join(T, "grid.png")).convert("RGBA")
    m = Image.open(os.path.join(T, "mask.png")).resize((4, 4), Image.NEAREST)
    g.putalpha(m)
    g.save(os.path.join(T, "grid-alpha.png"))
    write_json(os.path.join(T, "mask-quad.gltf"),
               gltf_quad("grid-alpha.png", {"alphaMode": "MASK", "alphaCutoff": 0.5}))
    B = os.path.join(ROOT, "tests", "data", "bad")
    write_json(os.path.join(B, "gltf_tex_required_extension.gltf"),
               gltf_quad("../textures/grid.png", extra={"extensionsUsed": ["KHR_draco_mesh_compression"],
                                                       "extensionsRequired": ["KHR_draco_mesh_compression"]}))
    write_json(os.path.join(B, "gltf_tex_bad_png.gltf"),
               gltf_quad("data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 40).decode()))
    write_json(os.path.join(B, "gltf_tex_bad_data_uri.gltf"), gltf_quad("data:image/png;base64,%%%not-base64%%%"))
    write_json(os.path.join(B, "gltf_tex_wrap.gltf"), gltf_quad("../textures/grid.png", sampler={"wrapS": 1234}))
    q = gltf_quad("../textures/grid.png")
    q["images"] = [{"bufferView": 2, "mimeType": "image/png"}]
    q["bufferViews"][2]["byteLength"] = 4000
    write_json(os.path.join(B, "gltf_tex_bufferview_past_buffer.gltf"), q)
    # A PNG whose header claims 16384 x 16384 texels in 60 bytes.
    huge = open(os.path.join(T, "bw.png"), "rb").read()
    ihdr = struct.pack(">II", 16384, 16384) + huge[24:29]
    import zlib
    crc = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr) & 0xffffffff)
    with open(os.path.join(B, "tex_huge_claim.png"), "wb") as fh:
        fh.write(huge[:16] + ihdr + crc + huge[33:])
    with open(os.path.join(B, "tex_truncated.png"), "wb") as fh:
        fh.write(open(os.path.join(A, "textures", "tiles.png"), "rb").read()[:3000])
    with open(os.path.join(B, "json_tex_huge_claim.json"), "w") as fh:
        fh.write('{\n  "camera": {"from": [0, 0, 5], "at": [0, 0, 0]},\n  "materials": {\n    "big": {"texture": "tex_huge_claim.png"}\n  },\n'
                 '  "objects": [{"type": "sphere", "centre": [0, 0, 0], "radius": 1, "material": "big"}]\n}\n')
    with open(os.path.join(B, "json_tex_truncated.json"), "w") as fh:
        fh.write('{\n  "camera": {"from": [0, 0, 5], "at": [0, 0, 0]},\n  "materials": {\n    "cut": {"texture": "tex_truncated.png"}\n  },\n'
                 '  "objects": [{"type": "sphere", "centre": [0, 0, 0], "radius": 1, "material": "cut"}]\n}\n')
    with open(os.path.join(B, "json_tex_wrap.json"), "w") as fh:
        fh.write('{\n  "camera": {"from": [0, 0, 5], "at": [0, 0, 0]},\n  "materials": {\n    "w": {"texture": {"file": "../textures/grid.png", "wrap": "mirror"}}\n  }\n}\n')
    with open(os.path.join(B, "json_tex_mask_on_sphere.json"), "w") as fh:
        fh.write('{\n  "camera": {"from": [0, 0, 5], "at": [0, 0, 0]},\n  "materials": {\n    "holey": {"alpha": {"texture": "../textures/mask.png"}}\n  },\n'
                 '  "objects": [{"type": "sphere", "centre": [0, 0, 0], "radius": 1, "material": "holey"}]\n}\n')
    with open(os.path.join(B, "obj_map_option.obj"), "w") as fh:
        fh.write("mtllib obj_map_option.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n")
    with open(os.path.join(B, "obj_map_option.mtl"), "w") as fh:
        fh.write("newmtl m\nKd 1 1 1\nmap_Kd -zz 2 grid.png\n")


if __name__ == "__main__":
    tiles()
    floor_mr()
    floor_normal()
    marble()
    leaf()
    foliage()
    scenes()
    test_data()
    gltf_data()
