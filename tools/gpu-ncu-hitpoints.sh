#!/usr/bin/env bash
# Run ON the GPU machine with .gpu and .gpu-old (the build before robust hit points)
# carried: Nsight Compute on the shade and reflect kernels of the default scene (1080p,
# depth 2, stream launches: ncu cannot profile graphs with conditional nodes), old
# against new, for issue #10's cost; then compute-sanitizer over the new build.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source .gpu/env.sh 2>/dev/null
NCU="ncu --cache-control none --clock-control none"
SECT="--section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SpeedOfLight --section InstructionStats"
R="render --backend cuda --depth 2 --launch stream -o /tmp/x.png"
for v in old new; do bin=stencilrt; [ $v = old ] && bin=.gpu-old/bin/stencilrt
  $NCU $SECT -k regex:k_stencil_read --launch-count 1 $bin $R > "$OUT/ncu-shade-$v.txt" 2>&1; echo "shade $v rc=$?"
  $NCU $SECT -k regex:k_stencil_write --launch-skip 2 --launch-count 1 $bin $R > "$OUT/ncu-reflect-$v.txt" 2>&1; echo "reflect $v rc=$?"
done
for f in shade-old shade-new reflect-old reflect-new; do echo "--- $f"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit Registers|Executed Ipc A|Issue Slots Busy|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Executed Instructions  |Warp Cycles Per Issued|One or More Eligible|Avg. Active Threads" "$OUT/ncu-$f.txt" | head -20; done
[ "${SKIP_SAN:-0}" = 1 ] || { echo "== compute-sanitizer"; timeout 400 bash tests/gpu/sanitize.sh "$(command -v stencilrt)" > "$OUT/sanitize.log" 2>&1;
  echo "sanitize rc=$?"; grep -c "rc=0" "$OUT/sanitize.log"; grep -v "rc=0" "$OUT/sanitize.log" | head -20; tail -3 "$OUT/sanitize.log"; }
