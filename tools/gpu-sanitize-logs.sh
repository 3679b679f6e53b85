#!/usr/bin/env bash
# Run ON the GPU machine with .gpu carried: the whole tests/gpu/sanitize.sh matrix (one case
# at a time), the kernels' shared memory (racecheck's domain), and 12 concurrent plain
# renders of the stencil graph compared with one alone. Logs under $OUT.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source .gpu/env.sh 2>/dev/null
BIN=$(command -v stencilrt)
/usr/local/cuda/bin/cuobjdump --dump-resource-usage "$BIN" | grep -o "SHARED:[0-9]*" | sort | uniq -c
stencilrt render --backend cuda --mode stencil --launch graph -W 67 -H 33 --depth 4 --spp 2 -o /tmp/alone.png > /dev/null
for k in $(seq 12); do stencilrt render --backend cuda --mode stencil --launch graph -W 67 -H 33 --depth 4 --spp 2 \
  -o /tmp/par$k.png > /dev/null 2>&1 & done; wait
md5sum /tmp/alone.png /tmp/par*.png | awk '{print $1}' | sort | uniq -c
time bash tests/gpu/sanitize.sh "$BIN" > "$OUT/sanitize.log" 2>&1; echo "sanitize rc=$?"
grep -c "rc=0" "$OUT/sanitize.log"; grep -E "rc=[1-9]" "$OUT/sanitize.log" | head -20
