# The map (docs/performance.md "The map", README "What it found"): which dead-ray mode wins
# each workload, at 1920x1080, every mode, from one run: Whitted on the mirror default scene
# and Conference (BVH8), depth 8; the path integrator on the Cornell box, the Cornell box
# with glass spheres and with water (depth 16) and Conference lit by an area light (depth
# 8), 16 samples; and the default scene's kill patterns at survival 0.5 (depth 8).
# tools/bench/map_table.py prints the table. MAP_FRAMES sets the timed frames.
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
for k in ray warp block4; do bench map-kill-$k-0.5 --kill $k:0.5 --depths 8 --modes all --frames $n > /dev/null; done
python3 tools/bench/map_table.py "$R"/map-whitted-*.json "$R"/map-path-*.json "$R"/map-kill-*.json
