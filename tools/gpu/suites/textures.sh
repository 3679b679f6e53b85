# What textures and alpha masks cost (docs/performance.md, "Textures"), 1920x1080, every
# mode, BVH2 and BVH8: the default scene against scenes/textured.json (a texture on every
# surface), Conference with one plain material against the same with a box-projected
# texture, and the 1200 alpha-masked leaf cards of scenes/foliage.json against the same
# cards opaque; the textured scenes both bilinear from the full images (the default) and
# trilinear from their mip chains (`--texture-filter trilinear`). Then memcheck over the
# textured and masked scenes in the path modes.
tex=$PWD/assets/textures
for v in plain textured; do
  mat='{"colour": [0.9, 0.9, 0.9]}'
  [ $v = textured ] && mat="{\"colour\": [1, 1, 1], \"texture\": \"$tex/tiles.png\"}"
  cat > "$R/conference-$v.json" <<JSON
{"camera": {"from": [1600, 500, 90], "at": [200, 100, 10], "up": [0, 1, 0], "fov": 75},
 "materials": {"m": $mat},
 "lights": [{"type": "point", "position": [600, 600, 50], "colour": [1, 1, 1]}],
 "objects": [{"type": "mesh", "file": "$CONF", "material": "m", "uv": {"projection": "box", "size": 50}}]}
JSON
done
# The leaf cards without their mask: the same geometry and colour texture, opaque.
sed "s|map_Kd textures/|map_Kd $tex/|; /map_d/d" assets/foliage.mtl > "$R/foliage.mtl"
cp assets/foliage.obj "$R/foliage.obj"
sed "s|\.\./assets/foliage.obj|$R/foliage.obj|; s|\.\./assets/textures|$tex|" scenes/foliage.json > "$R/foliage-opaque.json"
for accel in bvh2 bvh8; do
  bench default-$accel scenes/default.json --accel $accel --modes all --depths 1,8 --frames 20 > /dev/null
  bench textured-$accel scenes/textured.json --accel $accel --modes all --depths 1,8 --frames 20 > /dev/null
  bench conf-plain-$accel "$R/conference-plain.json" --accel $accel --modes all --depths 1,2 --frames 20 > /dev/null
  bench conf-textured-$accel "$R/conference-textured.json" --accel $accel --modes all --depths 1,2 --frames 20 > /dev/null
  bench textured-trilinear-$accel scenes/textured.json --texture-filter trilinear --accel $accel --modes all --depths 1,8 --frames 20 > /dev/null
  bench conf-textured-trilinear-$accel "$R/conference-textured.json" --texture-filter trilinear --accel $accel --modes all --depths 1,2 --frames 20 > /dev/null
  bench foliage-opaque-$accel "$R/foliage-opaque.json" --accel $accel --modes all --depths 1,2 --frames 20 > /dev/null
  bench foliage-$accel scenes/foliage.json --accel $accel --modes all --depths 1,2 --frames 20 > /dev/null
  for m in stencil flags compact megakernel regenerate; do
    for s in default textured textured-trilinear conf-plain conf-textured conf-textured-trilinear foliage-opaque foliage; do
      printf '%-4s %-10s %-23s' $accel $m $s; row $m $s-$accel; echo
    done
  done
done
grep -h "^textures" "$R"/*-bvh8.txt | sort | uniq
for case in "memcheck megakernel scenes/textured.json" "memcheck regenerate scenes/textured.json --texture-filter trilinear" \
            "memcheck stencil scenes/foliage.json" \
            "memcheck regenerate scenes/foliage.json" "initcheck stencil scenes/textured.json"; do
  set -- $case
  compute-sanitizer --tool $1 --error-exitcode 99 stencilrt render --backend cuda --mode $2 ${@:3} -W 67 -H 33 \
    --depth 4 --spp 2 --accel bvh8 -o "$R/san.png" > "$R/san.log" 2>&1
  echo "$*: rc=$? $(grep -E 'ERROR SUMMARY' "$R/san.log" | tail -1)"; mv "$R/san.log" "$R/san-$1-$2-$(basename "$3" .json)$#.log"
done
# NCU=1: Nsight Compute over the megakernel's one launch at depth 1 (BVH8), textured
# against plain, trilinear against bilinear, and masked against opaque: where the time goes.
if [ "${NCU:-0}" = 1 ]; then
  for s in default:scenes/default.json textured:scenes/textured.json \
           "textured-trilinear:scenes/textured.json --texture-filter trilinear" foliage-opaque:$R/foliage-opaque.json \
           foliage:scenes/foliage.json; do
    ncu_run "mega-${s%%:*}" -k regex:k_megakernel --launch-count 1 stencilrt render --backend cuda --launch stream \
      --mode megakernel --accel bvh8 -W 1920 -H 1080 --depth 1 ${s#*:} -o "$R/ncu.png"
    echo "-- ${s%%:*}"; ncu_summary "$R/ncu-mega-${s%%:*}.txt" | head -24
  done
fi
