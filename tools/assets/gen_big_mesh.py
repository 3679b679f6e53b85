#!/usr/bin/env python3
"""Write a big mesh for the builders and loaders to be measured on: rolling hills as a
binary PLY of about TRIANGLES triangles (a grid of N x N vertices, two triangles a cell,
the heights a sum of waves). Run at test or bench time; nothing this large is committed.

    python3 tools/assets/gen_big_mesh.py OUT.ply [--triangles 10000000]

Stdlib only and deterministic: the same arguments write the same bytes.
"""
import argparse
import array
import math
import struct
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--triangles", type=int, default=10_000_000)
    a = ap.parse_args()
    if a.triangles < 2:
        sys.exit("gen_big_mesh: --triangles must be at least 2")
    cells = max(1, math.ceil(math.sqrt(a.triangles / 2)))
    n = cells + 1
    size = 1000.0
    verts = array.array("f")
    for j in range(n):
        z = size * j / cells
        for i in range(n):
            x = size * i / cells
            y = (40.0 * math.sin(x * 0.013) * math.cos(z * 0.011) + 9.0 * math.sin(x * 0.071 + z * 0.053) +
                 2.0 * math.sin(x * 0.31) * math.sin(z * 0.29))
            verts.extend((x, y, z))
    if sys.byteorder != "little":
        verts.byteswap()
    faces = 2 * cells * cells
    row = struct.Struct("<" + "Biii" * (2 * cells))
    with open(a.out, "wb") as f:
        f.write(("ply\nformat binary_little_endian 1.0\ncomment gen_big_mesh.py: rolling hills, %d x %d cells\n"
                 "element vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
                 "element face %d\nproperty list uchar int vertex_indices\nend_header\n"
                 % (cells, cells, n * n, faces)).encode("ascii"))
        f.write(verts.tobytes())
        for j in range(cells):
            v = []
            for i in range(cells):
                a0 = j * n + i
                b0, c0, d0 = a0 + 1, a0 + n, a0 + n + 1
                v += (3, a0, c0, b0, 3, b0, c0, d0)
            f.write(row.pack(*v))
    print("%s: %d vertices, %d triangles" % (a.out, n * n, faces))


if __name__ == "__main__":
    main()
