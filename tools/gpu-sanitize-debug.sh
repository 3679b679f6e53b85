#!/usr/bin/env bash
# Run ON the GPU machine with .gpu carried: the GPU tests, then compute-sanitizer with whole
# logs for a few cases under $OUT, then the full tests/gpu/sanitize.sh matrix.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source .gpu/env.sh 2>/dev/null
export SRT_SHARED_DATA=$PWD/.data SRT_SOURCE_DIR=$PWD
CS=/usr/local/cuda/bin/compute-sanitizer
srt_gpu_tests > "$OUT/gpu_tests.log" 2>&1; echo "gpu tests rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED)" "$OUT/gpu_tests.log"
for c in "memcheck stencil graph" "racecheck stencil graph" "racecheck flags graph"; do
  set -- $c
  $CS --tool $1 --error-exitcode 99 stencilrt render --backend cuda --mode $2 --launch $3 -W 67 -H 33 --depth 4 --spp 2 \
    -o /tmp/x.png > "$OUT/$1-$2-$3.log" 2>&1; echo "$c rc=$?"; grep -m 12 -E "Invalid|at 0x|by thread|Address|Error|error" "$OUT/$1-$2-$3.log"
done
SAN_JOBS=10 timeout 420 bash tests/gpu/sanitize.sh "$(command -v stencilrt)" > "$OUT/sanitize.log" 2>&1; echo "sanitize rc=$?"
grep -c "rc=0" "$OUT/sanitize.log"; grep -E "rc=[1-9]" "$OUT/sanitize.log" | head -30
