#!/usr/bin/env bash
# Run ON the H100 with .gpu carried: issue #9's tail kernel. GPU tests, the default scene's
# depth sweep with the tail threshold at 0 (no tail: the sparse bounce per bounce), 32,
# 128 (the default) and 512 live words, flags beside it, 4K/8K depth 8, and the
# compute-sanitizer matrix. Logs packed into $OUT/tail.tgz; a summary is printed.
set -u
OUT=${OUT:-/tmp/out}; R=/tmp/tail; mkdir -p "$R" "$OUT"
source .gpu/env.sh 2>/dev/null
export XDG_CACHE_HOME=$R/cache SRT_SHARED_DATA=$PWD/.data SRT_SOURCE_DIR=$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$R/gpu.txt"
b() { local name=$1; shift; stencilrt bench --backend cuda --no-progress --no-tuning "$@" --json "$R/$name.json" > "$R/$name.txt" 2>&1
      echo "== $name rc=$?"; }
[ "${SKIP_TESTS:-0}" = 1 ] || { echo "== GPU tests"; srt_gpu_tests > "$R/gpu_tests.log" 2>&1; echo "rc=$?";
  grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED|OK \]" "$R/gpu_tests.log" | head -30; }
for t in ${TAILS:-0 32 128 512}; do SRT_TAIL_WORDS=$t b tail$t --depths 1..12 --modes stencil --launch both --frames 40; done
b flags --depths 1..12 --modes flags --frames 40
for s in 3840x2160 7680x4320; do b big-$s -W ${s%x*} -H ${s#*x} --depths 8 --modes stencil,flags --frames 20; done
[ "${SKIP_SAN:-0}" = 1 ] || { echo "== compute-sanitizer"; SAN_JOBS=1 timeout ${SAN_TIMEOUT:-240} bash tests/gpu/sanitize.sh "$(command -v stencilrt)" > "$R/sanitize.log" 2>&1;
  echo "sanitize rc=$?"; grep -c "rc=0" "$R/sanitize.log"; grep -v "rc=0" "$R/sanitize.log" | head -20; }
tar czf "$OUT/tail.tgz" -C "$R" --exclude cache .
echo "== summary"
for f in "$R"/tail*.txt "$R"/flags.txt "$R"/big-*.txt; do echo "--- $(basename $f)"; grep -A6 "^dead bounces" "$f" | head -7
  grep -E "^(stencil|flags) +(graph|stream)? *(1|2|4|8|9|10|11|12) " "$f" | head -16; done 2>/dev/null | head -150
