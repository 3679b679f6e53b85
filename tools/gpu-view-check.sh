#!/usr/bin/env bash
# gpu-view-check.sh - the viewer on the GPU machine: a real GLX window on the H100
# through a carried Xvfb, CUDA-OpenGL interop, an exact comparison with the headless
# CUDA render, and FPS at depth 1 and 8 with vsync off.
#
# Run ON the GPU machine, from the repository root. Prepare on the build machine
# (see ../shared/docs/gpu-machine.md, "A real window with CUDA-OpenGL interop"):
#   printf '/.gpu/\n/.x11/\n' >> .git/info/exclude
#   cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-gpu --target stencilrt srt_tests
#   ../shared/tools/gpu-bundle.sh .gpu build-gpu/stencilrt build-gpu/tests/srt_tests
#   ../shared/tools/gpu-x11-fetch-debs.sh .x11
# then one device run with carry [".gpu", ".x11"]:
#   bash tools/gpu-view-check.sh
# Files go to $OUT (the device run's output folder) or /tmp/gpu-view-check.
# Exit status: 0 when every check passed, 1 otherwise.
set -uo pipefail

out=${OUT:-/tmp/gpu-view-check}
mkdir -p "$out"
x11=${X11_DIR:-.x11}
gpu=${GPU_DIR:-.gpu}
[ -d "$x11" ] && [ -d "$gpu" ] || { echo "gpu-view-check: need $x11 and $gpu (carry them)" >&2; exit 2; }

# shellcheck disable=SC1090,SC1091
source "$x11/gpu-x11-start.sh" "$x11" || { echo "gpu-view-check: X server did not start" >&2; exit 1; }
# shellcheck disable=SC1090,SC1091
source "$gpu/env.sh"
bin=$(command -v stencilrt) || { echo "gpu-view-check: stencilrt not in $gpu/bin" >&2; exit 2; }
echo "DISPLAY=$DISPLAY  stencilrt=$bin"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
fail=0

echo
echo "== 1. one window: GL_RENDERER and the upload path =="
"$bin" view --backend cuda --width 640 --height 480 --frames 5 --no-vsync \
    --screenshot "$out/view-640x480.png" 2>&1 | tee "$out/view.log"
grep -q '^viewer: GL_RENDERER=' "$out/view.log" || { echo "FAIL: no GL_RENDERER line"; fail=1; }
if grep -q '^viewer: interop=cuda-gl-pbo' "$out/view.log"; then
    echo "interop: used (CUDA writes the GL pixel buffer)"
else
    echo "FAIL: interop not used:"; grep 'notice\|upload=' "$out/view.log"; fail=1
fi
"$bin" render --backend cuda -W 640 -H 480 -o "$out/render-640x480.png" >/dev/null || fail=1

echo
echo "== 2. exact: viewer screenshots (scripted keys, resize) == headless CUDA render =="
SRT_BINARY=$bin SRT_VIEW_BACKEND=cuda SRT_VIEW_USE_DISPLAY=1 SRT_VIEW_EXPECT_INTEROP=1 \
    srt_tests --gtest_filter='Viewer.*' --gtest_color=no 2>&1 | tee "$out/viewer-tests.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail=1

echo
echo "== 3. FPS, 1280x720 default scene, vsync off, 600 frames each =="
for d in 1 8; do
    for m in stencil compact; do
        "$bin" view --backend cuda --depth "$d" --mode "$m" --frames 600 --no-vsync \
            >"$out/fps-d$d-$m.log" 2>&1 || fail=1
        printf 'depth %d %-8s ' "$d" "$m"
        grep -E '^viewer: (frame 600 fps|[0-9]+ frames in)' "$out/fps-d$d-$m.log" | tr '\n' ' '
        echo
    done
done

echo
echo "== 4. the HUD on the GPU (for the README) =="
"$bin" view --backend cuda --frames 200 --no-vsync --screenshot "$out/viewer-cuda.png" \
    >"$out/hud.log" 2>&1 || fail=1
ls -l "$out"/viewer-cuda*.png 2>/dev/null

echo
[ $fail -eq 0 ] && echo "gpu-view-check: all checks passed" || echo "gpu-view-check: FAILED (see $out)"
exit $fail
