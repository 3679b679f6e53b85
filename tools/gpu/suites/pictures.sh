# The README's path-traced pictures, rendered on the GPU (minutes on the CPU each) straight
# into $OUT/pictures/ (the suite's tgz leaves PNGs out): the three Cornell boxes of
# ../shared/data path-traced to a clean image, the original under Whitted beside them, and
# scenes/glass.json. A camera that fills the frame with the box (the OBJ has none, and
# the loader's framing leaves it small). Look at each before it goes into docs/.
CB=$PWD/.data/scenes/cornell-box
P=$OUT/pictures; mkdir -p "$P"
CAM="--camera-from 0,1,3.9 --camera-at 0,1,0 --camera-up 0,1,0 --fov 38 -W 512 -H 512"
for b in Original Water Sphere; do
  stencilrt render --backend cuda "$CB/CornellBox-$b.obj" $CAM --integrator path --depth 16 --spp 4096 \
    -o "$P/cornell-$(echo $b | tr A-Z a-z)-path.png" 2>&1 | grep -E "^frame|error"
done
stencilrt render --backend cuda "$CB/CornellBox-Original.obj" $CAM --depth 8 --spp 16 \
  -o "$P/cornell-original-whitted.png" 2>&1 | grep -E "^frame|error"
stencilrt render --backend cuda scenes/glass.json --spp 4096 -W 800 -H 800 -o "$P/glass-path.png" 2>&1 | grep -E "^frame|error"
# The thin lens: scenes/depth-of-field.json, in focus on its third sphere (the glass).
stencilrt render --backend cuda scenes/depth-of-field.json --spp 1024 -o "$P/depth-of-field.png" 2>&1 | grep -E "^frame|error"
# The environment map: scenes/environment.json under Poly Haven's quarry (docs/environment.png
# is this, brought down to 800x450 with PIL's Lanczos filter).
stencilrt render --backend cuda scenes/environment.json --env "$PWD/.data/env/quarry_01_1k.hdr" --spp 1024 \
  -W 1280 -H 720 -o "$P/environment.png" 2>&1 | grep -E "^frame|^sky|error"
# glTF's BRDF and rough glass: scenes/materials.json (docs/materials.png is this, brought
# down to 800x450 with PIL's Lanczos filter; suite materials renders it too).
stencilrt render --backend cuda scenes/materials.json --spp 2048 -W 1280 -H 720 -o "$P/materials.png" 2>&1 |
  grep -E "^frame|^sky|error"
