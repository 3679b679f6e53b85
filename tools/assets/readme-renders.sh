#!/usr/bin/env bash
# The README's PLY, glTF and texture renders (docs/ply-bunny.png, docs/gltf-knot.png,
# docs/textured.png, docs/foliage.png); the first two from files
# written by tools that are not ours: assimp (Debian's assimp-utils) turns the Stanford
# bunny of ../shared/data into a binary PLY and our torus knot into a .glb. The meshes
# stay in a temporary folder (third-party data is never copied into the project).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN:-$root/build/stencilrt}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
assimp export "$root/../shared/data/meshes/stanford-bunny.obj" "$tmp/bunny.ply" -f plyb >/dev/null
assimp export "$root/assets/torus-knot.obj" "$tmp/knot.glb" -f glb2 >/dev/null
cat > "$tmp/bunny.json" <<JSON
{"camera": {"from": [0.08, 0.2, 0.42], "at": [-0.015, 0.1, 0.0], "fov": 38},
 "background": [0.55, 0.62, 0.72], "ambient": [0.12, 0.12, 0.13],
 "materials": {"clay": {"colour": [0.85, 0.72, 0.6], "kd": 0.9},
               "floor": {"colour": [0.9, 0.9, 0.9], "kd": 0.8, "kr": 0.25}},
 "lights": [{"type": "point", "position": [0.3, 0.6, 0.5], "colour": [0.9, 0.88, 0.82]}],
 "objects": [{"type": "mesh", "file": "bunny.ply", "material": "clay", "smooth": true},
             {"type": "plane", "point": [0, 0.0334, 0], "normal": [0, 1, 0], "material": "floor",
              "checker": {"colour": [0.3, 0.3, 0.35], "size": 0.05}}]}
JSON
cat > "$tmp/knot.json" <<JSON
{"camera": {"from": [0, 1.6, 5.2], "at": [0, 0.9, 0], "fov": 45},
 "background": [0.08, 0.09, 0.12], "ambient": [0.05, 0.05, 0.06],
 "materials": {"brass": {"colour": [0.8, 0.6, 0.25], "kd": 0.5, "kr": [0.6, 0.45, 0.2]},
               "floor": {"colour": [0.7, 0.7, 0.7], "kd": 0.7, "kr": 0.3}},
 "lights": [{"type": "point", "position": [3, 6, 4], "colour": [0.9, 0.88, 0.85]},
            {"type": "directional", "direction": [0.3, -1, -0.5], "colour": [0.25, 0.27, 0.3]}],
 "objects": [{"type": "mesh", "file": "knot.glb", "material": "brass", "smooth": true,
              "transform": {"scale": 0.9, "rotate": [90, 0, 20], "translate": [0, 1.1, 0]}},
             {"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "floor",
              "checker": {"colour": [0.15, 0.15, 0.17], "size": 0.75}}]}
JSON
"$bin" render "$tmp/bunny.json" -W 800 -H 450 --spp 16 -o "$root/docs/ply-bunny.png"
"$bin" render "$tmp/knot.json" -W 800 -H 450 --spp 16 -o "$root/docs/gltf-knot.png"
# Our own textured scenes (tools/assets/gen_textures.py).
"$bin" render "$root/scenes/textured.json" -W 800 -H 450 --spp 16 -o "$root/docs/textured.png"
"$bin" render "$root/scenes/foliage.json" -W 800 -H 450 --spp 16 -o "$root/docs/foliage.png"
