#!/usr/bin/env bash
# Run ON the H100 with .gpu carried: Nsight Compute on issue #9's tail kernel. Stream
# launches (ncu cannot profile kernels inside graphs with conditional nodes; the kernels
# are the same). The tail's duration at depths 7, 8 and 12 gives its cost per bounce; the
# sections say what one bounce of a few warps waits on. Logs under $OUT.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source .gpu/env.sh 2>/dev/null
NCU="ncu --cache-control none --clock-control none"
SECT="--section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section SpeedOfLight --section InstructionStats"
for d in 7 8 12; do
  $NCU --metrics gpu__time_duration.sum,smsp__inst_executed.sum -k regex:"k_stencil_tail|k_stencil_sparse_bounce|k_end_bounce" \
    stencilrt render --backend cuda --launch stream --depth $d -o /tmp/x.png > "$OUT/ncu-d$d.txt" 2>&1
  echo "== depth $d rc=$?"
  grep -E "^  k_|^  void|gpu__time_duration|inst_executed" "$OUT/ncu-d$d.txt" | paste - - - | awk '{n=$1; sub(/\(.*/,"",n); print n, $(NF-4), $(NF)}' | grep -v " 0$" | tail -12
done
# the one tail launch that works at depth 12 (the others return at entry)
$NCU $SECT -k regex:k_stencil_tail --launch-skip 6 --launch-count 1 stencilrt render --backend cuda --launch stream --depth 12 -o /tmp/x.png > "$OUT/ncu-tail-sections.txt" 2>&1
echo "== sections rc=$?"
grep -E "Duration|Registers Per|Grid Size|Block Size|Achieved Occupancy|Executed Ipc|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Stall|L1/TEX Hit|L2 Hit|Local|Executed Instructions  " "$OUT/ncu-tail-sections.txt" | head -40
