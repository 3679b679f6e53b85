#!/usr/bin/python3
"""Our own environment map and the scene that uses it (numpy; run with /usr/bin/python3).
Deterministic: the same bytes every run.

  assets/env/sky.hdr         256x128 Radiance RGBE, run-length encoded, in the convention
                             of src/render/environment.h (row 0 straight up, the centre
                             column along +X): a blue sky that pales to the horizon, a
                             brown ground, and a sun disc of 3 degrees, 40 degrees up,
                             a quarter turn from +X towards -Z, some 60% of the power
  scenes/environment.json    a diffuse, a metal and a glass sphere on a grey plane under it
"""
import json
import math
import os

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def sky(w, h):
    v = (np.arange(h) + 0.5) / h
    u = (np.arange(w) + 0.5) / w
    theta = np.pi * v[:, None] * np.ones((1, w))
    phi = 2.0 * np.pi * (u[None, :] - 0.5) * np.ones((h, 1))
    # Directions, Y up: u = 1/2 + atan2(z, x) / 2 pi, v = acos(y) / pi.
    d = np.stack([np.sin(theta) * np.cos(phi), np.cos(theta), np.sin(theta) * np.sin(phi)], axis=-1)
    up = np.clip(d[..., 1], 0.0, 1.0)
    zenith = np.array([0.15, 0.3, 0.9])
    horizon = np.array([0.9, 0.9, 1.0])
    t = up[..., None] ** 0.5
    img = horizon * (1.0 - t) + zenith * t
    ground = np.array([0.25, 0.18, 0.12])
    img = np.where(d[..., 1:2] >= 0.0, img, ground)
    # The sun: 40 degrees up, towards -Z (u = 1/4).
    el, az = math.radians(40.0), -math.pi / 2
    s = np.array([math.cos(el) * math.cos(az), math.sin(el), math.cos(el) * math.sin(az)])
    cosang = d @ s
    disc = cosang > math.cos(math.radians(1.5))
    img[disc] = np.array([4000.0, 3600.0, 3000.0])
    return img.astype(np.float32)


def rgbe(img):
    m = img.max(axis=-1)
    out = np.zeros(img.shape[:2] + (4,), dtype=np.uint8)
    nz = m > 1e-32
    mant, exp = np.frexp(m[nz])
    scale = (mant * 256.0 / m[nz])[:, None]
    out[nz, :3] = np.floor(img[nz] * scale).astype(np.uint8)
    out[nz, 3] = (exp + 128).astype(np.uint8)
    return out


def encode_channel(vals):
    b = bytearray()
    x, n = 0, len(vals)
    while x < n:
        run = 1
        while x + run < n and run < 127 and vals[x + run] == vals[x]:
            run += 1
        if run >= 3:
            b += bytes([128 + run, vals[x]])
            x += run
            continue
        start = x
        while x < n and x - start < 128:
            if x + 2 < n and vals[x] == vals[x + 1] == vals[x + 2]:
                break
            x += 1
        b += bytes([x - start]) + bytes(vals[start:x])
    return bytes(b)


def write_hdr(path, img):
    h, w = img.shape[:2]
    px = rgbe(img)
    data = bytearray(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n" + f"-Y {h} +X {w}\n".encode())
    for y in range(h):
        data += bytes([2, 2, w >> 8, w & 255])
        for c in range(4):
            data += encode_channel([int(v) for v in px[y, :, c]])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    write_hdr(os.path.join(ROOT, "assets", "env", "sky.hdr"), sky(256, 128))
    scene = {
        "camera": {"from": [0, 1.6, 6.5], "at": [0, 0.9, 0], "fov": 45},
        "render": {"integrator": "path", "depth": 8},
        "environment": {"file": "../assets/env/sky.hdr", "intensity": 1.0, "rotation": 30},
        "materials": {
            "clay": {"colour": [0.7, 0.45, 0.35], "kd": 1.0},
            "ground": {"colour": [0.5, 0.5, 0.5], "kd": 1.0},
            "metal": {"colour": [0, 0, 0], "kd": 0, "kr": [0.95, 0.8, 0.55], "roughness": 0.25},
            "glass": {"colour": [1, 1, 1], "kd": 0, "ior": 1.5},
        },
        "objects": [
            {"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "ground"},
            {"type": "sphere", "centre": [-1.6, 0.8, 0], "radius": 0.8, "material": "clay"},
            {"type": "sphere", "centre": [0, 0.8, -0.6], "radius": 0.8, "material": "metal"},
            {"type": "sphere", "centre": [1.6, 0.8, 0], "radius": 0.8, "material": "glass"},
        ],
    }
    # One line per camera, setting, material and object, as our other scenes are written.
    def one(v):
        return json.dumps(v, separators=(", ", ": "))
    lines = ["{"]
    for k in ("camera", "render", "environment"):
        lines.append(f'    "{k}": {one(scene[k])},')
    lines.append('    "materials": {')
    mats = list(scene["materials"].items())
    lines += [f'        "{n}": {one(m)}' + ("," if i + 1 < len(mats) else "") for i, (n, m) in enumerate(mats)]
    lines.append("    },")
    lines.append('    "objects": [')
    objs = scene["objects"]
    lines += ["        " + one(o) + ("," if i + 1 < len(objs) else "") for i, o in enumerate(objs)]
    lines += ["    ]", "}"]
    with open(os.path.join(ROOT, "scenes", "environment.json"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
