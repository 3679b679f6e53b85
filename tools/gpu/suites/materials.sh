# glTF's BRDF and rough glass (docs/performance.md, "glTF's BRDF and rough glass"):
# scenes/materials.json path-traced at 1080p, depth 8, every mode, under our own sky
# (assets/env/sky.hdr), with rays/s and SIMD efficiency per bounce, and the README's
# picture of it. Look at the picture before it goes into docs/.
n=${MATERIALS_FRAMES:-20}
bench materials scenes/materials.json --integrator path --modes all --depths 8 --frames $n > /dev/null
if [ -f "$R/materials.txt" ]; then
  echo "## materials"
  awk '/^mode +launch +depth +median/{f=1} /^$/{if(f)exit} f' "$R/materials.txt"
  grep -iE "simd|bounce" "$R/materials.txt" | head -24
fi
P=$OUT/pictures; mkdir -p "$P"
stencilrt render --backend cuda scenes/materials.json --spp 2048 -W 1280 -H 720 -o "$P/materials.png" 2>&1 |
  grep -E "^frame|^sky|error"
# NCU=1: Nsight Compute of the two kernels that hold a path in registers and of the
# stencil's first six compaction launches (its bounces 1 and 2, map.sh), on this scene and
# on a copy without the floor's normal map, benched too: what the map costs, and why.
if [ "${NCU:-0}" = 1 ]; then
  python3 -c 'import re; s = open("scenes/materials.json").read()
open("scenes/materials-plain-floor.json", "w").write(re.sub(r",\s*\"normal_texture\": \"[^\"]*\"", "", s))'
  bench materials-plain-floor scenes/materials-plain-floor.json --integrator path --modes all --depths 8 --frames $n > /dev/null
  echo "## materials without the floor's normal map"
  awk '/^mode +launch +depth +median/{f=1} /^$/{if(f)exit} f' "$R/materials-plain-floor.txt"
  for scene in materials materials-plain-floor; do
    for k in megakernel:k_megakernel:1:1 regenerate:k_regenerate:1:1 stencil:k_compact:0:6; do
      m=${k%%:*}; rest=${k#*:}; kernel=${rest%%:*}; rest=${rest#*:}; skip=${rest%%:*}; count=${rest#*:}
      ncu_run $scene-$m --kernel-name regex:$kernel --launch-skip $skip --launch-count $count \
        stencilrt render --backend cuda --launch stream scenes/$scene.json -i path -d 8 --mode $m -o /tmp/x.png
      echo "## ncu $scene $m $kernel"; ncu_summary "$R/ncu-$scene-$m.txt"
    done
  done
  rm -f scenes/materials-plain-floor.json
fi
