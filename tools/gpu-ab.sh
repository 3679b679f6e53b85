#!/usr/bin/env bash
# Run ON the H100 with .gpu, .gpu-old (bin/stencilrt only: the binary to compare against)
# and .data carried: tools/gpu-bvh.sh's benches and Nsight Compute for the old binary and
# then the new, in one device call, each on the same machine (ACCELS, default bvh8;
# ROUNDS, default 1: old, new, old, new... against drift). Logs in $OUT/ab-{old,new}-K/.
# SASS=1 also writes the SASS and an opcode histogram of the new binary's BVH8 primary
# intersect kernel to $OUT/sass-intersect8.txt (cuobjdump exists only there).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
[ -x .gpu-old/bin/stencilrt ] || { echo "gpu-ab.sh: no .gpu-old/bin/stencilrt" >&2; exit 2; }
cp .gpu/bin/stencilrt /tmp/stencilrt-new
for k in $(seq 1 "${ROUNDS:-1}"); do
  for which in old new; do
    echo "######## $which (round $k)"
    if [ $which = old ]; then cp .gpu-old/bin/stencilrt .gpu/bin/stencilrt; else cp /tmp/stencilrt-new .gpu/bin/stencilrt; fi
    SKIP_TESTS=1 ACCELS="${ACCELS:-bvh8}" OUT="$OUT/ab-$which-$k" bash tools/gpu-bvh.sh
  done
done
cp /tmp/stencilrt-new .gpu/bin/stencilrt
if [ "${SASS:-0}" = 1 ]; then
  cuobjdump -sass .gpu/bin/stencilrt | awk '/Function : /{keep = ($0 ~ /k_stencil_write/ && $0 ~ /IntersectOpILi8/)} keep' \
    > "$OUT/sass-intersect8.txt"
  echo "== SASS opcodes, BVH8 primary intersect ($(grep -c '/\*[0-9a-f]*\*/' "$OUT/sass-intersect8.txt") instructions)"
  grep -oE '/\*[0-9a-f]{4}\*/ +(@!?U?P[0-9T] +)?[A-Z0-9_.]+' "$OUT/sass-intersect8.txt" | awk '{print $NF}' |
    sed 's/\..*//' | sort | uniq -c | sort -rn | head -30
fi
