#!/usr/bin/env bash
# Run ON the GPU machine with .gpu (and .gpu-old, the previous build) carried: Nsight Compute
# evidence for issue #9 (near-dead sparse bounces; generate before and after). Logs under $OUT.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source .gpu/env.sh 2>/dev/null
NCU="ncu --cache-control none --clock-control none"
SECT="--section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section SpeedOfLight"
R="render --backend cuda --depth 12 --launch stream -o /tmp/x.png"  # ncu cannot profile kernels of graphs with conditional nodes
# 1) every kernel of a depth-12 1080p frame (stream launches; the same kernels as the graph's): durations
$NCU --metrics gpu__time_duration.sum stencilrt $R > "$OUT/ncu-frame-graph.txt" 2>&1; echo "frame graph rc=$?"
grep -E "^  [a-z_].*\(|gpu__time_duration" "$OUT/ncu-frame-graph.txt" | paste - - | awk '{print $1, $(NF)}' | sed 's/(.*//' | head -60
# 2) sections: a near-dead sparse bounce (the last one), k_end_bounce, generate new and old
$NCU $SECT -k regex:k_stencil_sparse_bounce --launch-skip 11 --launch-count 1 stencilrt $R > "$OUT/ncu-sparse.txt" 2>&1; echo "sparse rc=$?"
$NCU $SECT -k regex:k_end_bounce --launch-skip 10 --launch-count 1 stencilrt $R > "$OUT/ncu-end-bounce.txt" 2>&1; echo "end rc=$?"
$NCU $SECT -k regex:k_stencil_write --launch-count 1 stencilrt $R > "$OUT/ncu-generate-new.txt" 2>&1; echo "gen new rc=$?"
$NCU $SECT -k regex:k_stencil_write --launch-count 1 .gpu-old/bin/stencilrt ${R/--launch stream/} > "$OUT/ncu-generate-old.txt" 2>&1; echo "gen old rc=$?"
for f in sparse end-bounce generate-new generate-old; do echo "--- $f"; grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Grid Size|Block Size|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|Stall|One or More Eligible|Issued Warp" "$OUT/ncu-$f.txt" | head -22; done
echo "== racecheck on the smallest WHILE-node graph (tools/repro/while_node.cu)"
while_node; echo "plain rc=$?"
/usr/local/cuda/bin/compute-sanitizer --tool racecheck while_node; echo "racecheck rc=$?"
while_node nested; echo "nested plain rc=$?"
/usr/local/cuda/bin/compute-sanitizer --tool racecheck while_node nested; echo "nested racecheck rc=$?"
/usr/local/cuda/bin/compute-sanitizer --tool memcheck while_node | tail -2; echo "memcheck rc=$?"
