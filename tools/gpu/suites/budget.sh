# The path kernels' instruction budget (docs/performance.md, "Where a path vertex's
# instructions go"): Nsight Compute's source counters over path regeneration's kernel on
# the Cornell box, the Cornell box with its glass sphere (depth 16) and Conference lit by
# an area light (BVH8, depth 8), 1080p, one sample, each sampler named in BUDGET_SAMPLERS
# (default: sobol, the default, and independent). The kernel's machine code, disassembled
# with its inline line table (nvdisasm -gi), says which source file each instruction came
# from; tools/bench/budget.py joins the two: instructions executed, and their stall
# samples, per part of the vertex (traversal, BSDF, light sampling, random numbers,
# bookkeeping), per path vertex. SRT picks the binary (suite ab's stencilrt-old, say).
CB=$PWD/.data/scenes/cornell-box
conf_path_scene "$R/conference-path-scene.json"
BIN=$(command -v ${SRT:-stencilrt})
# The binary's cubins, once: the disassembly needs the one that holds the kernel.
mkdir -p "$R/cubin" && (cd "$R/cubin" && cuobjdump -xelf all "$BIN" > /dev/null 2>&1)
budget_case() {
  local name=$1 sampler=$2; shift 2
  local rep="$R/rep-$name-$sampler"
  ncu --cache-control none --clock-control none --section SourceCounters --section WarpStateStats \
    --section LaunchStats --section Occupancy --section InstructionStats --section SpeedOfLight \
    --import-source no --print-kernel-base mangled --kernel-name regex:k_regenerate --launch-skip 1 --launch-count 1 \
    -f -o "$rep" "$BIN" render --backend cuda --launch stream --mode regenerate --sampler "$sampler" \
    -W 1920 -H 1080 --stats-json "$R/stats-$name-$sampler.json" -o /tmp/budget.png "$@" > "$rep.log" 2>&1
  echo "== ncu $name $sampler (rc=$?)"
  ncu -i "$rep.ncu-rep" --print-kernel-base mangled --page details --print-details all > "$rep.details.txt" 2>&1
  ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > "$rep.sass.csv" 2>&1
  local fn; fn=$(grep -oE "_ZN3srt4cuda12k_regenerate[A-Za-z0-9_]+" "$rep.details.txt" | head -1)
  local cub; cub=$(grep -l "$fn" "$R"/cubin/*.cubin 2>/dev/null | head -1)
  if [ -n "$fn" ] && [ -n "$cub" ]; then
    # (nvdisasm's -fun takes a function's index, not its name: the whole cubin, cut.)
    [ -s "$R/$fn.sass" ] ||
      nvdisasm -gi -c "$cub" 2>/dev/null | awk -v f="$fn" '/^\t*\.section/{on=index($0, ".text." f)>0} on' > "$R/$fn.sass"
    python3 tools/bench/budget.py "$rep.sass.csv" "$R/$fn.sass" "$R/stats-$name-$sampler.json" --title "$name $sampler" \
      --json "$R/budget-$name-$sampler.json" | tee "$R/budget-$name-$sampler.txt"
  else
    echo "no kernel or cubin for $name ($fn, $cub)"
  fi
  grep -E "Duration|Registers Per|Executed Instructions  |Warp Cycles Per Issued|Issued Warp Per Scheduler|Achieved Occupancy|Local Memory Spilling Requests  " "$rep.details.txt" | head -12
}
for s in ${BUDGET_SAMPLERS:-sobol independent}; do
  budget_case cornell "$s" "$CB/CornellBox-Original.obj" --integrator path -d 16
  budget_case cornell-sphere "$s" "$CB/CornellBox-Sphere.obj" --integrator path -d 16
  budget_case conference "$s" "$R/conference-path-scene.json" --accel bvh8 -d 8
done
rm -rf "$R/cubin" "$R"/*.ncu-rep  # (the reports are 10 MB each; the CSVs hold what budget.py reads)
