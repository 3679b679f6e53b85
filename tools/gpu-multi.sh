#!/usr/bin/env bash
# Run ON a multi-GPU machine (nvidia-h200-x2/x4) with .gpu and .data carried: issue #15's
# split frames. GPU tests (split == one device == CPU), the same PNG from one and from
# every GPU, and bench at 3840x2160 and 7680x4320, depth 8, one GPU against all.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source .gpu/env.sh 2>/dev/null
export SRT_SHARED_DATA=$PWD/.data SRT_SOURCE_DIR=$PWD
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpus.txt"
nvidia-smi topo -m 2>/dev/null | head -5
echo "== GPU tests"
srt_gpu_tests > "$OUT/gpu_tests.log" 2>&1; echo "rc=$?"
grep -E "^\[split\]|OK \]|FAILED|PASSED|SKIPPED \]" "$OUT/gpu_tests.log" | head -30
echo "== one image from 1 GPU and from all"
stencilrt render --backend cuda --devices 0 -W 3840 -H 2160 -o /tmp/one.png | tail -2
stencilrt render --backend cuda --devices all -W 3840 -H 2160 -o /tmp/all.png | tail -4
cmp /tmp/one.png /tmp/all.png && echo "identical PNG from 1 and from all GPUs"
for s in 3840x2160 7680x4320; do
  for d in 0 all; do
    echo "== bench $s depth 8 --devices $d"
    stencilrt bench --backend cuda --devices $d --no-tuning --no-progress -W ${s%x*} -H ${s#*x} --depths 8 --modes stencil \
      --frames 30 --json "$OUT/bench-$s-$d.json" 2>&1 | grep -E "^stencil +graph +8 |part [0-9]|balance" | head -8
  done
done
