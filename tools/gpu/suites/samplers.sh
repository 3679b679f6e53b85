# The samplers (docs/performance.md "Samplers"): the Cornell box (depth 16) and Conference
# lit by an area light (conf_path_scene, depth 8, BVH8) at SAMPLER_SIZE (default 960x540).
# For each sampler: the frame time at 16 spp in the path modes (bench), and the image at
# 1, 2, 4, ..., 64 spp as PFM; a reference of many samples (SAMPLER_REF_CORNELL, default
# 4096; SAMPLER_REF_CONF, 1024) under independent numbers and another seed. Then
# tools/bench/sampler_mse.py prints the MSE against spp and at equal time (the time of 16
# spp of independent's), and writes sampler_mse.csv for tools/bench/plot_samplers.py.
CB=$PWD/.data/scenes/cornell-box
conf_path_scene "$R/conference-path-scene.json"
size=${SAMPLER_SIZE:-960x540}; W=${size%x*}; H=${size#*x}
for scene in cornell conference; do
  if [ $scene = cornell ]; then
    file=$CB/CornellBox-Original.obj; d=16; ref=${SAMPLER_REF_CORNELL:-4096}; accel=bvh2
  else
    file=$R/conference-path-scene.json; d=8; ref=${SAMPLER_REF_CONF:-1024}; accel=bvh8
  fi
  stencilrt render --backend cuda --accel $accel "$file" -i path -d $d -W $W -H $H --spp $ref --seed 999 \
    --sampler independent -o "$R/$scene-ref.pfm" > "$R/$scene-ref.log" 2>&1
  echo "== $scene reference: $ref spp (rc=$?)"
  for s in independent sobol zsobol; do
    bench $scene-$s-time "$file" --accel $accel --integrator path --sampler $s --modes all --depths $d --spp 16 \
      -W $W -H $H --frames 10 > /dev/null
    for n in 1 2 4 8 16 32 64; do
      stencilrt render --backend cuda --accel $accel "$file" -i path -d $d -W $W -H $H --spp $n --sampler $s \
        -o "$R/$scene-$s-$n.pfm" > /dev/null 2>&1 || echo "render $scene $s $n failed"
    done
  done
done
python3 tools/bench/sampler_mse.py "$R" | tee "$R/sampler_mse.txt"
cp "$R/sampler_mse.csv" "$OUT/" 2>/dev/null
rm -f "$R"/*.pfm
