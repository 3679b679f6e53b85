#!/usr/bin/env bash
# Run ON a multi-GPU machine (nvidia-h200-x2/x4) with .gpu, .data and .x11 carried: issue
# #15's split frames.
#   1. GPU tests: split == one device == CPU, the device gather by peer and by host;
#   2. the same PNG from one GPU and from all;
#   3. bench at 3840x2160 and 7680x4320, depth 8, split over all GPUs: bands, balance,
#      and the scaling against one GPU, measured in the same run;
#   4. the viewer on all GPUs at 3840x2160 in a real window (carried Xvfb, CUDA-GL
#      interop): FPS, against the viewer on one GPU, and a screenshot equal to the
#      headless render.
# Prepare here: build, ../shared/tools/gpu-bundle.sh .gpu build/stencilrt
# build/tests/srt_gpu_tests build/tests/srt_tests, ../shared/tools/gpu-x11-fetch-debs.sh .x11.
# SECTIONS="1 4" runs only those parts (default: all).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SECTIONS=${SECTIONS:-"1 2 3 4 5"}
want() { case " $SECTIONS " in *" $1 "*) return 0;; *) return 1;; esac; }
source .gpu/env.sh 2>/dev/null
export SRT_SHARED_DATA=$PWD/.data SRT_SOURCE_DIR=$PWD
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpus.txt"
nvidia-smi topo -m 2>/dev/null | head -4 | tee "$OUT/topo.txt"
if want 1; then
echo "== 1. GPU tests"
srt_gpu_tests > "$OUT/gpu_tests.log" 2>&1; echo "rc=$?"
grep -E "^\[split|OK \]|FAILED|PASSED|SKIPPED \]" "$OUT/gpu_tests.log" | head -40
fi
if want 2; then
echo "== 2. one image from 1 GPU and from all"
stencilrt render --backend cuda --devices 0 -W 3840 -H 2160 -o /tmp/one.png | tail -2
stencilrt render --backend cuda --devices all -W 3840 -H 2160 -o /tmp/all.png | tail -4
cmp /tmp/one.png /tmp/all.png && echo "identical PNG from 1 and from all GPUs"
fi
if want 3; then
for s in 3840x2160 7680x4320; do
  echo "== 3. bench $s depth 8 --devices all (scaling against part 0 alone in the same run)"
  stencilrt bench --backend cuda --devices all --no-tuning --no-progress -W ${s%x*} -H ${s#*x} --depths 1,8 \
    --modes stencil --launch graph --frames 30 --json "$OUT/bench-$s.json" > "$OUT/bench-$s.log" 2>&1
  sed -n '/^split frame/,$p' "$OUT/bench-$s.log"
done
fi
if want 4 || want 5; then
echo "== 4. the viewer at 3840x2160 on one GPU and on all"
export X11_SCREEN=3840x2160x24
# shellcheck disable=SC1091
source .x11/gpu-x11-start.sh .x11 > "$OUT/x11.log" 2>&1 || { echo "X server did not start"; cat "$OUT/x11.log"; }
want 4 && for d in 0 all; do
  for depth in 1 8; do
    stencilrt view --backend cuda --devices $d -W 3840 -H 2160 --depth $depth --frames 300 --no-vsync \
      > "$OUT/view-$d-$depth.log" 2>&1; rc=$?
    printf 'devices %-3s depth %d rc=%d  ' "$d" "$depth" "$rc"
    grep -E '^viewer: (interop=|[0-9]+ frames in)' "$OUT/view-$d-$depth.log" | tr '\n' ' '; echo
  done
done
want 4 && grep -hE "GL_RENDERER|backend=|fps=|part [0-9]" "$OUT"/view-*.log | head -40
fi
if want 5; then
echo "== 5. the viewer tests with the viewer split over all GPUs (against a one-GPU headless render)"
SRT_BINARY=$(command -v stencilrt) SRT_VIEW_BACKEND=cuda SRT_VIEW_USE_DISPLAY=1 SRT_VIEW_EXPECT_INTEROP=1 \
  SRT_VIEW_ARGS="--devices all" srt_tests --gtest_filter='Viewer.*' --gtest_color=no > "$OUT/viewer-tests.log" 2>&1
echo "rc=$?"; grep -E "OK \]|FAILED|PASSED|SKIPPED" "$OUT/viewer-tests.log" | head -20
fi
tar czf "$OUT/logs.tgz" -C "$OUT" --exclude=logs.tgz --exclude='*.png' . 2>/dev/null
