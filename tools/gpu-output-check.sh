#!/usr/bin/env bash
# Run ON the GPU machine with .gpu (stencilrt, srt_gpu_tests, srt_tests) and .x11 carried:
# the evidence for issue #12 (output side). GPU tests (device accumulation == the CPU's
# spp-N frame), compute-sanitizer, a 60-frame camera path at 1080p with its frames/s and
# --stats-json, an EXR and a PFM from the GPU (for exrheader on the build machine), and
# tools/gpu-view-check.sh (viewer accumulation with CUDA-GL interop == render --spp N).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source .gpu/env.sh 2>/dev/null
export SRT_SHARED_DATA=$PWD/.data SRT_SOURCE_DIR=$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
echo "== GPU tests"
srt_gpu_tests > "$OUT/gpu_tests.log" 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED|gpu accumulate|OK \]" "$OUT/gpu_tests.log" | head -30
echo "== camera path: scenes/orbit.json, 60 frames (0..59), 1920x1080, depth 8, PNG"
mkdir -p /tmp/path
stencilrt render scenes/orbit.json --backend cuda -W 1920 -H 1080 --frames 0..59 -o /tmp/path/orbit_%04d.png \
  --stats-json "$OUT/orbit-1080p.json" 2>"$OUT/orbit-progress.txt" | tee "$OUT/orbit-1080p.txt"
echo "rc=${PIPESTATUS[0]}"; ls /tmp/path | wc -l; tail -2 "$OUT/orbit-progress.txt"
cp /tmp/path/orbit_0030.png "$OUT/"
echo "== the same path to /dev/null-like PFM, and to EXR (half): frames/s without PNG encoding"
stencilrt render scenes/orbit.json --backend cuda -W 1920 -H 1080 --frames 0..59 -o /tmp/path/orbit_%04d.exr 2>/dev/null | tail -2
echo "== split ranges on the GPU equal the whole, byte for byte"
mkdir -p /tmp/a /tmp/b
stencilrt render scenes/orbit.json --backend cuda -W 640 -H 360 --frames 10..14 -o /tmp/a/o_%02d.png >/dev/null 2>&1
stencilrt render scenes/orbit.json --backend cuda -W 640 -H 360 --frames 10..11 -o /tmp/b/o_%02d.png >/dev/null 2>&1
stencilrt render scenes/orbit.json --backend cuda -W 640 -H 360 --frames 12..14 -o /tmp/b/o_%02d.png >/dev/null 2>&1
diff -r /tmp/a /tmp/b && echo "split == whole: identical (5 files)"
echo "== HDR from the GPU"
stencilrt render --backend cuda -W 960 -H 540 --spp 16 -o "$OUT/gpu-float.exr" --exr-pixel float --exr-channels rgba | tail -1
stencilrt render --backend cuda -W 960 -H 540 --spp 16 -o "$OUT/gpu.pfm" | tail -1
stencilrt render --backend cuda -W 960 -H 540 --spp 16 --exposure 1 -o "$OUT/gpu-ev1.png" | tail -1
[ "${SKIP_SAN:-0}" = 1 ] || { echo "== compute-sanitizer"; timeout 300 bash tests/gpu/sanitize.sh "$(command -v stencilrt)" > "$OUT/sanitize.log" 2>&1;
  echo "sanitize rc=$?"; grep -c "rc=0" "$OUT/sanitize.log"; grep -v "rc=0" "$OUT/sanitize.log" | head -10; rm -f "$OUT/sanitize.log"; }
echo "== viewer (tools/gpu-view-check.sh)"
[ "${SKIP_VIEW:-0}" = 1 ] || { [ -d .x11 ] && OUT=/tmp/view bash tools/gpu-view-check.sh 2>&1 | tail -40;
  cp /tmp/view/viewer-cuda.hud.png /tmp/view/viewer-cuda.png "$OUT/" 2>/dev/null; }
