# The path integrator's figures (docs/performance.md, "Path tracing"): the Cornell box at
# 1080p, depth 16, one sample; Conference at 1080p, depth 8, lit by a white area light
# (conf_path_scene in lib.sh); scenes/glass.json; every mode, with rays/s and SIMD
# efficiency per bounce in each bench's tables. PATH_FRAMES sets the timed frames; NCU=1
# adds Nsight Compute of the path kernels on the Cornell box.
CB=$PWD/.data/scenes/cornell-box
n=${PATH_FRAMES:-20}
conf_path_scene "$R/conference-path-scene.json"
bench cornell-path "$CB/CornellBox-Original.obj" --integrator path --modes all --depths 16 --frames $n > /dev/null
bench cornell-sphere-path "$CB/CornellBox-Sphere.obj" --integrator path --modes all --depths 16 --frames $n > /dev/null
bench glass-path scenes/glass.json --integrator path --modes all --depths 16 --frames $n > /dev/null
bench conference-path "$R/conference-path-scene.json" --accel bvh8 --integrator path --modes all --depths 8 --frames $n > /dev/null
for b in cornell-path cornell-sphere-path glass-path conference-path; do
  echo "## $b"
  awk '/^mode +launch +depth +median/{f=1} /^$/{if(f)exit} f' "$R/$b.txt"
done
if [ "${NCU:-0}" = 1 ]; then
  for m in megakernel regenerate; do
    ncu_run cornell-path-$m --kernel-name regex:k_$m --launch-skip 1 --launch-count 1 \
      stencilrt render --backend cuda --launch stream "$CB/CornellBox-Original.obj" -i path -d 16 --mode $m -o /tmp/x.png
    echo "## ncu cornell-path $m"; ncu_summary "$R/ncu-cornell-path-$m.txt"
  done
fi
