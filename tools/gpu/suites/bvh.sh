# The BVH layouts compared (docs/performance.md, "BVH layouts"): bench --accel for each of
# $ACCELS (default bvh2 bvh4 bvh8) on Conference, Sibenik, Sponza, the bunny, the teapot
# (1024x768) and the default scene (1080p) at depth 1 and 2 (the primary rays' time is
# intersect at depth 1), and Nsight Compute on Conference's primary intersect. SRT picks
# the binary (suite ab runs it for an old one).
ACCELS=${ACCELS:-bvh2 bvh4 bvh8}
layouts() {
  local name=$1; shift
  for a in $ACCELS; do
    bench "$name-$a" --accel $a --modes stencil --frames 30 "$@" > /dev/null
    printf '%-11s %s: ' "$name" "$a"; grep -E "^stencil +graph +1 " "$R/$name-$a.txt" | awk '{printf "depth 1 %s ms", $4}'
    grep -E "^accel" "$R/$name-$a.txt" | sed 's/^accel */ | /'
  done
}
layouts conference "$CONF" $CONF_CAM -W 1024 -H 768 --depths 1,2
layouts default --depths 1,2,8
layouts sibenik .data/scenes/sibenik/sibenik.obj -W 1024 -H 768 --depths 1,2
layouts sponza .data/scenes/dabrovic-sponza/sponza.obj -W 1024 -H 768 --depths 1,2
layouts bunny .data/meshes/stanford-bunny.obj -W 1024 -H 768 --depths 1,2
layouts teapot .data/meshes/teapot.obj -W 1024 -H 768 --depths 1,2
for a in $ACCELS; do
  ncu_run "conference-intersect-$a" -k regex:k_stencil_write --launch-skip 1 --launch-count 1 \
    ${SRT:-stencilrt} render "$CONF" $CONF_CAM --accel $a --backend cuda --launch stream -W 1024 -H 768 --depth 1 -o /tmp/x.png
  ncu_summary "$R/ncu-conference-intersect-$a.txt" | head -24
done
