# The map (docs/performance.md "The map", README "What it found"): which dead-ray mode wins
# each workload, at 1920x1080, every mode, from one run: Whitted on the mirror default scene
# and Conference (BVH8), depth 8; the path integrator on the Cornell box, the Cornell box
# with glass spheres and with water (depth 16) and Conference lit by an area light (depth
# 8), and Khronos' WaterBottle under an HDRI (glTF PBR with its textures, depth 8), 16
# samples; and the default scene's kill patterns at survival 0.5 (depth 8).
# tools/bench/map_table.py prints the table. MAP_FRAMES sets the timed frames; NCU=1 (below)
# adds the profiles of the path-traced Conference.
CB=$PWD/.data/scenes/cornell-box
n=${MAP_FRAMES:-10}
conf_path_scene "$R/conference-path-scene.json"
bench map-whitted-default --depths 8 --modes all --frames $n > /dev/null
bench map-whitted-conference "$CONF" $CONF_CAM --accel bvh8 --depths 8 --modes all --frames $n > /dev/null
bench map-path-cornell "$CB/CornellBox-Original.obj" -i path --depths 16 --spp 16 --modes all --frames $n > /dev/null
bench map-path-cornell-glass "$CB/CornellBox-Sphere.obj" -i path --depths 16 --spp 16 --modes all --frames $n > /dev/null
bench map-path-cornell-water "$CB/CornellBox-Water.obj" -i path --depths 16 --spp 16 --modes all --frames $n > /dev/null
bench map-path-conference "$R/conference-path-scene.json" --accel bvh8 -i path --depths 8 --spp 16 --modes all \
  --frames $n > /dev/null
bench map-path-gltf-hdri "$PWD/.data/gltf/WaterBottle/WaterBottle.gltf" --env "$PWD/.data/env/royal_esplanade_1k.hdr" \
  --camera-from 1.2,0.45,3.3 --camera-at 0,-0.03,0 --camera-up 0,1,0 --fov 50 -i path --depths 8 --spp 16 --modes all \
  --frames $n > /dev/null
for k in ray warp block4; do bench map-kill-$k-0.5 --kill $k:0.5 --depths 8 --modes all --frames $n > /dev/null; done
python3 tools/bench/map_table.py "$R"/map-whitted-*.json "$R"/map-path-*.json "$R"/map-kill-*.json
# NCU=1: Nsight Compute of the path-traced Conference (1 sample, stream launches): the
# megakernel and path regeneration whole, and a mid-frame intersect and shade of
# compaction and of the pool (their 5th and 6th launches), and the stencil's bounce-1
# intersect, handed to compaction's kernel.
if [ "${NCU:-0}" = 1 ]; then
  args="--backend cuda --launch stream $R/conference-path-scene.json --accel bvh8 -i path -d 8 -o /tmp/x.png"
  for k in megakernel:k_megakernel regenerate:k_regenerate compact:k_compact_write compact:k_compact_read \
           pool:k_pool_intersect pool:k_pool_shade stencil:k_compact_write; do
    mode=${k%%:*}; kernel=${k#*:}
    skip=4; [ "$mode" = megakernel ] || [ "$mode" = regenerate ] && skip=0
    # The stencil hands the sample to compaction's kernels after bounce 0, whose stream
    # launches of them find nothing: its 3rd k_compact_write is bounce 1's intersect.
    [ "$mode" = stencil ] && skip=2
    ncu_run map-$mode-$kernel --kernel-name regex:$kernel --launch-skip $skip --launch-count 1 \
      stencilrt render --mode $mode $args
    echo "## ncu path-conference $mode $kernel"; ncu_summary "$R/ncu-map-$mode-$kernel.txt"
  done
fi
