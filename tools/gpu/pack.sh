#!/usr/bin/env bash
# Run HERE (not on the GPU machine), from the repository root, after building for sm_90:
#   tools/gpu/pack.sh [BUILD_DIR]        (default: build)
# Puts what a device call needs into ignored folders of the checkout:
#   .gpu/   the binaries (stencilrt, srt_gpu_tests, traversal_bench) and the shared
#           libraries they load (../shared/tools/gpu-bundle.sh), with env.sh;
#   .data/  the third-party scenes the suites read, copied from ../shared/data (the big
#           OBJs stay compressed: tools/gpu/lib.sh unpacks them there).
# OLD=path/to/stencilrt also carries an older binary as .gpu/bin/stencilrt-old (suite ab);
# VIEW=1 adds srt_tests, whose viewer tests suite view runs (carry .x11 too, and no .data:
# a call carries at most 64 MiB); TESTS_BUILD=DIR takes it from another build (a CPU-only
# one will do: the viewer tests run the carried stencilrt for their CUDA images).
# Then call the device's run with carry [".gpu", ".data"] and: bash tools/gpu/run.sh SUITE...
set -euo pipefail
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
rm -rf .gpu
bins=("$BUILD/stencilrt" "$BUILD/tests/srt_gpu_tests")
[ -x "$BUILD/traversal_bench" ] && bins+=("$BUILD/traversal_bench")
[ "${VIEW:-0}" = 1 ] && bins+=("${TESTS_BUILD:-$BUILD}/tests/srt_tests")  # suite view: the viewer tests
../shared/tools/gpu-bundle.sh .gpu "${bins[@]}"
[ -n "${OLD:-}" ] && cp -L "$OLD" .gpu/bin/stencilrt-old
# Symbols are a third of the binaries (18 kernel variants each), and a call carries at
# most 64 MiB; a backtrace there names addresses, which `addr2line -e build/...` resolves here.
strip .gpu/bin/*
# NO_TRAVERSAL_BENCH=1 leaves the traversal benchmark out, when nothing run needs it.
[ "${NO_TRAVERSAL_BENCH:-0}" = 1 ] && rm -f .gpu/bin/traversal_bench
rm -rf .data
cp -a ../shared/data .data
echo "pack: $(du -sh .gpu | cut -f1) binaries, $(du -sh .data | cut -f1) data"
