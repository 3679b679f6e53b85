# Split frames over every GPU of the host (run on nvidia-h200-x2 or -x4 where `status`
# lends one; carry .gpu packed with VIEW=1, .data and .x11). PARTS picks some of them:
#   1 the GPU tests (split == one device == CPU, the device gather by peer and by host)
#   2 one PNG from one GPU and from all, compared
#   3 bench at 3840x2160 and 7680x4320 over all GPUs: bands, balance, scaling against one
#     GPU in the same run (the figures of docs/cluster.md)
#   4 the viewer at 3840x2160 on one GPU and on all (FPS)
#   5 the viewer tests with the viewer split over all GPUs
PARTS=${PARTS:-"1 2 3 4 5"}
want() { case " $PARTS " in *" $1 "*) return 0;; *) return 1;; esac; }
nvidia-smi --query-gpu=index,name --format=csv,noheader; nvidia-smi topo -m 2>/dev/null | head -4
if want 1; then
  srt_gpu_tests --gtest_filter='Gpu.Split*' > "$R/gpu_tests.log" 2>&1; echo "split tests rc=$?"
  grep -E "^\[split|OK \]|FAILED|PASSED|SKIPPED \]" "$R/gpu_tests.log" | head -20
fi
if want 2; then
  stencilrt render --backend cuda --devices 0 -W 3840 -H 2160 -o /tmp/one.png > /dev/null
  stencilrt render --backend cuda --devices all -W 3840 -H 2160 -o /tmp/all.png > /dev/null
  cmp /tmp/one.png /tmp/all.png && echo "identical PNG from 1 and from all GPUs"
fi
if want 3; then
  for s in 3840x2160 7680x4320; do
    bench split-$s --devices all -W ${s%x*} -H ${s#*x} --depths 1,8 --modes stencil --frames 30
    sed -n '/^split frame/,$p' "$R/split-$s.txt"
  done
fi
if want 4 || want 5; then
  X11_SCREEN=3840x2160x24 source .x11/gpu-x11-start.sh .x11 > "$R/x11.log" 2>&1 || echo "X server did not start"
fi
if want 4; then
  for d in 0 all; do for depth in 1 8; do
    stencilrt view --backend cuda --devices $d -W 3840 -H 2160 --depth $depth --frames 300 --no-vsync \
      > "$R/view-$d-$depth.log" 2>&1
    printf 'viewer devices %-3s depth %d rc=%d  ' "$d" "$depth" $?
    grep -E '^viewer: (interop=|[0-9]+ frames in)' "$R/view-$d-$depth.log" | tr '\n' ' '; echo
  done; done
fi
if want 5; then
  SRT_BINARY=$(command -v stencilrt) SRT_VIEW_BACKEND=cuda SRT_VIEW_USE_DISPLAY=1 SRT_VIEW_EXPECT_INTEROP=1 \
    SRT_VIEW_ARGS="--devices all" srt_tests --gtest_filter='Viewer.*' --gtest_color=no > "$R/viewer-tests.log" 2>&1
  echo "split viewer tests rc=$?"; grep -E "FAILED|PASSED|SKIPPED" "$R/viewer-tests.log" | head
fi
