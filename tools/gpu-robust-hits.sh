#!/usr/bin/env bash
# Run ON the GPU machine (device tool) with .gpu (and, for before/after, .gpu-old: the
# previous build's bundle) and .data carried: the figures of issue #10 (robust hit
# points). GPU tests (GPU = CPU on every scene, the big-sphere scene far from the origin
# among them), compute-sanitizer, and the cost of the new hit points: the default scene,
# Conference and the big-sphere scene, old binary against new. Packed into
# $OUT/robust.tgz; a summary is printed last.
set -u
OUT=${OUT:-/tmp/out}; R=/tmp/robust; mkdir -p "$R" "$OUT"
source .gpu/env.sh 2>/dev/null
export XDG_CACHE_HOME=$R/cache SRT_SHARED_DATA=$PWD/.data SRT_SOURCE_DIR=$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$R/gpu.txt"
[ -f .data/scenes/conference/conference.obj ] || xz -dk .data/scenes/conference/conference.obj.xz
CONF=.data/scenes/conference/conference.obj
CAM="--camera-from 1600,500,90 --camera-at 200,100,10 --camera-up 0,1,0 --fov 75 --light 600,600,50"
NEW=$(command -v stencilrt); OLD=$PWD/.gpu-old/bin/stencilrt
b() { local bin=$1 name=$2; shift 2; [ -x "$bin" ] || return 0
      "$bin" bench --backend cuda --no-progress --no-tuning "$@" --json "$R/$name.json" > "$R/$name.txt" 2>&1
      echo "== $name rc=$?"; }
[ "${SKIP_TESTS:-0}" = 1 ] || { echo "== GPU tests"; srt_gpu_tests > "$R/gpu_tests.log" 2>&1; echo "rc=$?";
  grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED|gpu==cpu" "$R/gpu_tests.log" | head -60; }
# Old and new interleaved, twice, so that clock drift shows as a spread.
for round in 1 2; do
  for v in old new; do
    bin=$OLD; [ $v = new ] && bin=$NEW
    b "$bin" $v-default-$round --depths 1,2,4,8 --modes stencil
    b "$bin" $v-conf-$round $CONF $CAM -W 1024 -H 768 --depths 1,2 --modes stencil
    b "$bin" $v-big-$round scenes/big-sphere.json -W 1920 -H 1080 --depths 1,2,8 --modes stencil
  done
done
for v in old new; do bin=$OLD; [ $v = new ] && bin=$NEW; [ -x "$bin" ] || continue
  "$bin" render scenes/big-sphere.json --backend cuda --stats -o "$R/big-$v.png" > "$R/big-$v-stats.txt" 2>&1
done
[ "${SKIP_SAN:-0}" = 1 ] || { echo "== compute-sanitizer"; timeout 300 bash tests/gpu/sanitize.sh "$NEW" > "$R/sanitize.log" 2>&1;
  echo "sanitize rc=$?"; grep -c "rc=0" "$R/sanitize.log"; grep -v "rc=0" "$R/sanitize.log" | head -20; }
tar czf "$OUT/robust.tgz" -C "$R" --exclude cache .
echo "== summary"
for f in "$R"/*-[12].txt; do echo "--- $(basename $f)"; grep -E "^stencil +(graph|stream)? *(1|2|4|8) " "$f" | head -6; done
for f in "$R"/big-*-stats.txt; do echo "--- $(basename $f)"; cat "$f" | head -30; done
