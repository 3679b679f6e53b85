# Nsight Compute over one whole frame of each mode (stream launches: ncu cannot profile
# kernels in graphs with conditional nodes), the default scene and Conference (BVH8) at
# 1080p, at depths 1 and 8, and the path modes at 16 samples: every kernel's time,
# instructions, DRAM bytes, occupancy, active threads per warp and stall reasons, summed
# per frame by tools/gpu/ncu_frame.py (the raw CSVs are in $OUT/ncu.tgz).
# `render` runs three frames (image, timed, counted); a cheap first pass counts the
# kernels, and the full one profiles only the middle, timed frame.
# MODES and SCENES override the lists.
profile() {  # NAME RENDER-ARGS...
  local name=$1; shift
  local n
  n=$(ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum --csv \
        stencilrt render --backend cuda --launch stream -o /tmp/x.png "$@" 2>/dev/null | grep -c '^"[0-9]')
  local k=$((n / 3))
  ncu --cache-control none --clock-control none $NCU_SECTIONS --metrics dram__bytes.sum,smsp__inst_executed.sum \
    --launch-skip $k --launch-count $k --csv --page details --print-details all \
    stencilrt render --backend cuda --launch stream -o /tmp/x.png "$@" > "$R/$name.csv" 2> "$R/$name.err" ||
    { echo "ncu $name failed"; tail -3 "$R/$name.err"; }
}
for scene in ${SCENES:-default conference}; do
  args=""; [ "$scene" = conference ] && args="$CONF $CONF_CAM --accel bvh8"
  for mode in ${MODES:-stencil flags compact megakernel regenerate}; do
    for depth in 1 8; do profile "$scene-$mode-d$depth" $args --mode $mode --depth $depth; done
  done
done
for mode in megakernel regenerate; do profile "default-$mode-d8-spp16" --mode $mode --depth 8 --spp 16; done
python3 tools/gpu/ncu_frame.py "$R"/*.csv | tee "$R/summary.txt"
