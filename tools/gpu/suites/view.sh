# The viewer on the GPU: a real GLX window on the H100 through a carried Xvfb (carry .x11
# from ../shared/tools/gpu-x11-fetch-debs.sh, and .gpu packed with srt_tests: pack.sh
# VIEW=1), CUDA-OpenGL interop, the viewer tests against the headless CUDA render (the
# scripted keys cycle every mode), and FPS at depth 1 and 8 with vsync off.
source .x11/gpu-x11-start.sh .x11 || { echo "view: X server did not start"; return 1; }
stencilrt view --backend cuda --width 640 --height 480 --frames 5 --no-vsync 2>&1 | tee "$R/view.log" |
  grep -E "^viewer: (GL_RENDERER|interop|upload)"
grep -q '^viewer: interop=cuda-gl-pbo' "$R/view.log" || echo "FAIL: interop not used"
SRT_BINARY=$(command -v stencilrt) SRT_VIEW_BACKEND=cuda SRT_VIEW_USE_DISPLAY=1 SRT_VIEW_EXPECT_INTEROP=1 \
  srt_tests --gtest_filter='Viewer.*' --gtest_color=no > "$R/viewer-tests.log" 2>&1
echo "viewer tests rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED)|^\[       OK|FAILED" "$R/viewer-tests.log"
for d in 1 8; do
  for m in stencil megakernel; do
    stencilrt view --backend cuda --depth $d --mode $m --frames 600 --no-vsync > "$R/fps-d$d-$m.log" 2>&1
    printf 'FPS 1280x720 depth %d %-10s ' $d $m
    grep -E '^viewer: (frame 600 fps|[0-9]+ frames in)' "$R/fps-d$d-$m.log" | tr '\n' ' '; echo
  done
done
stencilrt view --backend cuda --frames 200 --no-vsync --screenshot "$OUT/viewer-cuda.png" > "$R/hud.log" 2>&1
