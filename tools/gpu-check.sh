#!/usr/bin/env bash
# Run ON the GPU machine (device tool), from the repository root, with .gpu (from
# ../shared/tools/gpu-bundle.sh) and .data (copied test data) carried:
#   GPU tests, compute-sanitizer over every mode, and renders of the reference scenes.
# Writes logs and PNGs under $OUT.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source .gpu/env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
export SRT_SHARED_DATA=$PWD/.data SRT_SOURCE_DIR=$PWD
[ -f .data/scenes/conference/conference.obj ] || xz -dk .data/scenes/conference/conference.obj.xz
echo "== GPU tests"; srt_gpu_tests 2>&1 | tee "$OUT/gpu_tests.log" | grep -vE "^\[ RUN|^\[       OK" 
echo "== compute-sanitizer"; bash tests/gpu/sanitize.sh "$(command -v stencilrt)" 2>&1 | tee "$OUT/sanitize.log"
echo "== renders"
r() { local name=$1; shift; stencilrt render --backend cuda "$@" -o "$OUT/$name.png" > "$OUT/$name.log" 2>&1; echo "$name rc=$?"; grep -E "frame|backend" "$OUT/$name.log"; }
r default
r cornell-mirror .data/scenes/cornell-box/CornellBox-Mirror.obj -W 1280 -H 720
r balls .data/spd/balls_s2.nff
r conference .data/scenes/conference/conference.obj -W 1024 -H 768 --depth 1
for m in stencil flags compact; do for d in 1 2 4 8; do
  printf "default %-8s depth %d: " $m $d
  stencilrt render --backend cuda --mode $m --depth $d -o /tmp/x.png | grep frame
done; done
