# How rays die (docs/benchmark.md "How rays die", docs/performance.md): bench --kill on the
# default scene at 1080p, depth 8, every mode, for each pattern (ray, warp, block4) at
# survivals KILL_P (default "0.25 0.5 0.75 pbrt"), with `ray:1` (the kill's kernels,
# killing nothing) and no kill at all (the ordinary kernels) for scale; and the
# path-traced Cornell box at depth 16 with the same patterns at 0.5.
# tools/bench/kill_table.py turns the JSONs into the tables (time per live ray, live lanes
# per live warp), and with --plot into the figure (here, from kill.tgz's JSONs).
n=${KILL_FRAMES:-20}
CB=$PWD/.data/scenes/cornell-box
bench kill-none --depths 8 --modes all --frames $n > /dev/null
bench kill-ray-1 --kill ray:1 --depths 8 --modes all --frames $n > /dev/null
for p in ${KILL_P:-0.25 0.5 0.75 pbrt}; do
  for k in ray warp block4; do bench kill-$k-$p --kill $k:$p --depths 8 --modes all --frames $n > /dev/null; done
done
bench kill-cornell-none "$CB/CornellBox-Original.obj" -i path --depths 16 --modes all --frames $n > /dev/null
for k in ray warp block4; do
  bench kill-cornell-$k "$CB/CornellBox-Original.obj" -i path --kill $k:0.5 --depths 16 --modes all --frames $n > /dev/null
done
echo "## default scene, Whitted, depth 8"
python3 tools/bench/kill_table.py "$R"/kill-none.json "$R"/kill-ray-*.json "$R"/kill-warp-*.json "$R"/kill-block4-*.json
echo "## CornellBox-Original, path, depth 16"
python3 tools/bench/kill_table.py "$R"/kill-cornell-*.json
