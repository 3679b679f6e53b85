# A glTF PBR model under an HDRI (docs/performance.md, "A glTF model under an HDRI"):
# Khronos' WaterBottle (base colour, metallic-roughness, normal and emissive textures)
# under Poly Haven's royal_esplanade, path-traced at 1080p, depth 8, every mode, with
# rays/s and SIMD efficiency per bounce; and the README's picture of it. Look at the
# picture before it goes into docs/.
WB=$PWD/.data/gltf/WaterBottle/WaterBottle.gltf
ENV=$PWD/.data/env/royal_esplanade_1k.hdr
CAM="--camera-from 1.2,0.45,3.3 --camera-at 0,-0.03,0 --camera-up 0,1,0 --fov 50"
n=${GLTF_FRAMES:-20}
bench gltf "$WB" --env "$ENV" $CAM --integrator path --modes all --depths 8 --frames $n > /dev/null
if [ -f "$R/gltf.txt" ]; then
  echo "## gltf"
  awk '/^mode +launch +depth +median/{f=1} /^$/{if(f)exit} f' "$R/gltf.txt"
  grep -iE "simd|bounce" "$R/gltf.txt" | head -24
fi
P=$OUT/pictures; mkdir -p "$P"
stencilrt render --backend cuda "$WB" --env "$ENV" $CAM --integrator path --spp 2048 -W 1280 -H 720 \
  -o "$P/gltf.png" 2>&1 | grep -E "^frame|^sky|^scene|error"
