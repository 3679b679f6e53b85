#!/usr/bin/env bash
# Run ON the GPU machine (device tool) with .gpu (and, for before/after, .gpu-old: the
# previous build's bundle) and .data carried: the dead-bounce figures of issue #9.
# Everything is packed into $OUT/dead.tgz; a short summary is printed last.
set -u
OUT=${OUT:-/tmp/out}; R=/tmp/dead; mkdir -p "$R" "$OUT"
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
  grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED|gpu==cpu" "$R/gpu_tests.log" | head -40; }
b "$NEW" new-1080p --depths 1..12 --modes all --launch both
[ "${WITH_OLD:-0}" = 1 ] && b "$OLD" old-1080p --depths 1..12 --modes all
for s in 3840x2160 7680x4320; do
  b "$NEW" new-$s -W ${s%x*} -H ${s#*x} --depths 8 --modes stencil,flags --frames 20
  [ "${WITH_OLD:-0}" = 1 ] && b "$OLD" old-$s -W ${s%x*} -H ${s#*x} --depths 8 --modes stencil,flags --frames 20
done
b "$NEW" new-skip --skip
b "$NEW" new-skip-1080p --skip --skip-rays 2073600
b "$NEW" new-conf $CONF $CAM -W 1024 -H 768 --depths 1,2 --modes stencil,flags --launch both
for w in ${WAVES:-2 4 8}; do SRT_FILL_WAVES=$w b "$NEW" new-waves$w --depths 1,8,12 --modes stencil
  SRT_FILL_WAVES=$w b "$NEW" new-conf-waves$w $CONF $CAM -W 1024 -H 768 --depths 1,2 --modes stencil; done
echo "== racecheck, one graph case, whole log"
/usr/local/cuda/bin/compute-sanitizer --tool racecheck "$NEW" render --backend cuda --launch graph -W 67 -H 33 --depth 4 -o /tmp/rc.png > "$R/racecheck-graph.log" 2>&1; echo "rc=$?"; tail -5 "$R/racecheck-graph.log"
[ "${SKIP_SAN:-0}" = 1 ] || { echo "== compute-sanitizer"; SAN_JOBS=8 timeout 240 bash tests/gpu/sanitize.sh "$NEW" > "$R/sanitize.log" 2>&1;
  echo "sanitize rc=$?"; grep -c "rc=0" "$R/sanitize.log"; grep -v "rc=0" "$R/sanitize.log" | head -20; }
tar czf "$OUT/dead.tgz" -C "$R" --exclude cache .
echo "== summary"
for f in "$R"/*.txt; do echo "--- $(basename $f)"; grep -A8 "^dead bounces" "$f" | head -9
  grep -E "^(stencil|flags|compact) +(graph|stream)? *(1|8|12) " "$f" | head -12; done 2>/dev/null | head -150
