#!/usr/bin/env bash
# Run ON the GPU machine (device tool) with .gpu and .data carried: the benchmark
# figures for the README. Results are packed into $OUT/perf.tgz.
set -u
OUT=${OUT:-/tmp/out}; R=/tmp/perf; mkdir -p "$R" "$OUT"
source .gpu/env.sh 2>/dev/null
export XDG_CACHE_HOME=$R/cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$R/gpu.txt"
CONF=/tmp/conf; mkdir -p $CONF; cp .data/scenes/conference/conference.mtl $CONF/
[ -f $CONF/conference.obj ] || xz -dkc .data/scenes/conference/conference.obj.xz > $CONF/conference.obj
CAM="--camera-from 1600,500,90 --camera-at 200,100,10 --camera-up 0,1,0 --fov 75 --light 600,600,50"
b() { local name=$1; shift; echo "== bench $name: $*"; stencilrt bench --backend cuda --no-progress "$@" \
        --json "$R/$name.json" --csv "$R/$name.csv" > "$R/$name.txt" 2>&1; echo "rc=$?"; tail -${TAILN:-30} "$R/$name.txt"; }
TAILN=60 b default --no-tuning --depths 1..12 --modes all --launch both --plot "$R/default.png"
TAILN=30 b conference $CONF/conference.obj $CAM -W 1024 -H 768 --depths 1,2 --modes all --launch both --no-tuning \
  --plot "$R/conference.png"
for s in 3840x2160 7680x4320; do TAILN=8 b default-$s -W ${s%x*} -H ${s#*x} --depths 8 --modes stencil,flags --frames 20 --no-tuning; done
TAILN=30 b skip --skip
TAILN=14 b skip-1080p --skip --skip-rays 2073600
TAILN=12 b default-32x1 --no-tuning --warp-shape 32x1 --modes stencil --depths 1..8
TAILN=30 b tune --tune
TAILN=25 b default-tuned --depths 1..8
TAILN=12 b conference-tuned $CONF/conference.obj $CAM -W 1024 -H 768 --depths 1,2
stencilrt render --backend cuda -o "$R/default-1080p.png" | tail -3
stencilrt render $CONF/conference.obj $CAM --backend cuda -W 1024 -H 768 --depth 4 -o "$R/conference.png" 2>/dev/null | tail -2
tar czf "$OUT/perf.tgz" -C "$R" --exclude cache . && ls -la "$OUT"
