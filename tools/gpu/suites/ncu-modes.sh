# Nsight Compute over one whole frame of each mode (stream launches: ncu cannot profile
# kernels in graphs with conditional nodes), the default scene at 1080p and Conference
# (BVH8) at 1080p, at depths 1 and 8: every kernel's time, instructions, DRAM bytes,
# occupancy, active threads per warp and stall reasons, summed per frame by
# tools/gpu/ncu_frame.py (the raw CSVs are in $OUT/ncu-modes.tgz).
# MODES and SCENES override the lists.
for scene in ${SCENES:-default conference}; do
  args=""; [ "$scene" = conference ] && args="$CONF $CONF_CAM --accel bvh8"
  for mode in ${MODES:-stencil flags compact megakernel regenerate}; do
    for depth in 1 8; do
      ncu --cache-control none --clock-control none $NCU_SECTIONS --metrics dram__bytes.sum,smsp__inst_executed.sum \
        --csv --page details --print-details all \
        stencilrt render $args --backend cuda --launch stream --mode $mode --depth $depth -o /tmp/x.png \
        > "$R/$scene-$mode-d$depth.csv" 2> "$R/$scene-$mode-d$depth.err"
      [ $? -eq 0 ] || { echo "ncu $scene $mode depth $depth failed"; tail -3 "$R/$scene-$mode-d$depth.err"; }
    done
  done
done
python3 tools/gpu/ncu_frame.py "$R"/*.csv | tee "$R/summary.txt"
