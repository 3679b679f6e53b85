#!/usr/bin/env bash
# Run ON the H100 with .gpu carried: Nsight Compute evidence for two of issue #9's
# targets. Logs under $OUT.
# 1) `stencil` against `flags` at 1080p depth 8: every kernel of one frame in each mode
#    (stream launches: ncu cannot profile the kernels of graphs with conditional nodes),
#    durations summed by kernel.
# 2) the dead-ray kernel of `bench --skip` over a 1080p frame's rays (all dead): the sparse
#    read side and the empty kernel, their GPU durations against the event-timed launches.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source .gpu/env.sh 2>/dev/null
NCU="ncu --cache-control none --clock-control none"
for m in stencil flags; do
  $NCU --metrics gpu__time_duration.sum --csv stencilrt render --backend cuda --launch stream --depth 8 --mode $m \
    -o /tmp/x.png > "$OUT/ncu-frame-$m.csv" 2>&1; echo "frame $m rc=$?"
  python3 - "$OUT/ncu-frame-$m.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; k = head.index("Kernel Name"); v = head.index("Metric Value"); u = head.index("Metric Unit")
tot = collections.OrderedDict(); cnt = collections.Counter()
for r in rows[1:]:
    name = r[k].split("(")[0].replace("void ", "")
    val = float(r[v].replace(",", "")) * (1e-3 if r[u] == "ns" else 1.0 if r[u] in ("us", "usecond") else 1e3)
    tot[name] = tot.get(name, 0.0) + val; cnt[name] += 1
for name, t in tot.items(): print(f"  {name:70s} x{cnt[name]:3d} {t:8.1f} us")
print(f"  {'total':70s}      {sum(tot.values()):8.1f} us")
PY
done
SECT="--section LaunchStats --section SpeedOfLight --section Occupancy"
$NCU $SECT -k regex:k_stencil_sparse_read --launch-count 1 stencilrt bench --backend cuda --skip --skip-rays 2073600 \
  > "$OUT/ncu-skip-sparse.txt" 2>&1; echo "skip sparse rc=$?"
$NCU $SECT -k regex:k_empty --launch-count 1 stencilrt bench --backend cuda --skip --skip-rays 2073600 \
  > "$OUT/ncu-skip-empty.txt" 2>&1; echo "skip empty rc=$?"
for f in skip-sparse skip-empty; do echo "--- $f"; grep -E "Duration|Grid Size|Block Size|Elapsed Cycles|SM Active Cycles|Achieved Occupancy" "$OUT/ncu-$f.txt" | head -8; done
