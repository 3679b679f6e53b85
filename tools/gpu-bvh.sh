#!/usr/bin/env bash
# Run ON the H100 with .gpu and .data carried (.data: conference, sibenik, dabrovic-sponza
# under scenes/, teapot and stanford-bunny under meshes/): issue #11's layouts compared.
# GPU tests (BVH4 and BVH8 on the GPU == BVH2 on the CPU), then bench --accel for each of
# $ACCELS (default: bvh2 bvh4 bvh8) on every scene at depth 1 and 2 (stage times:
# intersect = primary rays at depth 1), and Nsight Compute on Conference's primary
# intersect with each. Logs packed in $OUT/bvh.tgz.
set -u
OUT=${OUT:-/tmp/out}; R=/tmp/bvh; ACCELS=${ACCELS:-bvh2 bvh4 bvh8}; mkdir -p "$R" "$OUT"
source .gpu/env.sh 2>/dev/null
export XDG_CACHE_HOME=$R/cache SRT_SHARED_DATA=$PWD/.data SRT_SOURCE_DIR=$PWD
for s in conference sibenik dabrovic-sponza; do
  f=.data/scenes/$s/$(ls .data/scenes/$s | grep '\.obj\.xz$'); [ -f "${f%.xz}" ] || xz -dk "$f"; done
CONF=.data/scenes/conference/conference.obj
CAM="--camera-from 1600,500,90 --camera-at 200,100,10 --camera-up 0,1,0 --fov 75 --light 600,600,50"
[ "${SKIP_TESTS:-0}" = 1 ] || { echo "== GPU tests"; srt_gpu_tests > "$R/gpu_tests.log" 2>&1; echo "rc=$?";
  grep -E "^\[bvh[48]\]|^\[  (PASSED|FAILED|SKIPPED)|FAILED" "$R/gpu_tests.log" | head -30; }
b() { local name=$1; shift; stencilrt bench --backend cuda --no-progress --no-tuning --modes stencil --frames 30 "$@" \
        --json "$R/$name.json" > "$R/$name.txt" 2>&1; echo "rc=$?"; }
run() { local name=$1; shift
  for a in $ACCELS; do printf '== %-12s %s ' "$name" "$a"; b "$name-$a" --accel $a "$@"
    grep -E "^accel" "$R/$name-$a.txt"
    grep -E "^stencil +graph +(1|2) " "$R/$name-$a.txt" | head -4; done; }
run conference $CONF $CAM -W 1024 -H 768 --depths 1,2
run default --depths 1,2,8
run sibenik .data/scenes/sibenik/sibenik.obj -W 1024 -H 768 --depths 1,2
run sponza .data/scenes/dabrovic-sponza/sponza.obj -W 1024 -H 768 --depths 1,2
run bunny .data/meshes/stanford-bunny.obj -W 1024 -H 768 --depths 1,2
run teapot .data/meshes/teapot.obj -W 1024 -H 768 --depths 1,2
NCU="ncu --cache-control none --clock-control none"
SECT="--section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section SpeedOfLight --section InstructionStats --print-details all"
for a in $ACCELS; do
  $NCU $SECT -k regex:k_stencil_write --launch-skip 1 --launch-count 1 stencilrt render $CONF $CAM --accel $a --backend cuda \
    --launch stream -W 1024 -H 768 --depth 1 -o /tmp/x.png > "$R/ncu-conf-intersect-$a.txt" 2>&1
  echo "== ncu conference primary intersect, $a rc=$?"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|No Eligible|Executed Instructions  |Compute \(SM\) Throughput|Local Memory Spilling Requests  |Issued Warp Per Scheduler|Stall (Not Selected|Math Pipe|Wait|Long Scoreboard) " "$R/ncu-conf-intersect-$a.txt" | head -24
done
tar czf "$OUT/bvh.tgz" -C "$R" --exclude cache --exclude '*.png' .
