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
# NCU=1: Nsight Compute of the two kernels that hold a path in registers, on this scene.
if [ "${NCU:-0}" = 1 ]; then
  for m in megakernel regenerate; do
    ncu_run materials-$m --kernel-name regex:k_$m --launch-skip 1 --launch-count 1 \
      stencilrt render --backend cuda --launch stream scenes/materials.json -i path -d 8 --mode $m -o /tmp/x.png
    echo "## ncu materials $m"; ncu_summary "$R/ncu-materials-$m.txt"
  done
fi
