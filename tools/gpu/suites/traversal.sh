# The traversal kernels alone (traversal_bench, tools/traversal-bench): BVH2, BVH4 and BVH8
# on four ray sets (primary, shadow, mirror, diffuse) at its default sizes (1024x768,
# 1920x1080, 3840x2160), with --check (every layout must find the BVH2's hits): Conference
# from the benchmark's camera and light (CONF_CAM), Sibenik and Sponza from their own
# cameras (where .data has them), the default scene, and two scenes with instances
# (scenes/instances.json, and 16 copies of Conference from tools/assets/gen_instances.py,
# at 1080p): the flattened copy's three layouts and the instanced BVH8. Each scene's rows are printed
# (size layout set rays hits median_ms grays_per_s differ ids); its output, stderr and JSON
# stay in $R/tb-NAME.txt, .err and .json. The last line is the check's result.
# TB_ARGS: more traversal_bench arguments for every scene (--size 1920x1080,
# --spatial-splits off); TB_TAG: a suffix for the logs' names, so that two runs can share $R.
tb_failed=
tb() {
  local name=$1; shift
  name=$name${TB_TAG:-}
  traversal_bench "$@" ${TB_ARGS:-} --check --json "$R/tb-$name.json" > "$R/tb-$name.txt" 2> "$R/tb-$name.err"
  local rc=$?
  echo "== traversal_bench $name (rc=$rc): $*"
  grep -m2 -E '^# (.*: [0-9]+ triangles|BVH2 build)' "$R/tb-$name.txt"
  grep -v '^#' "$R/tb-$name.txt"
  [ $rc = 0 ] || { tb_failed="$tb_failed $name"; head -5 "$R/tb-$name.err"; }
}
echo "# size layout set rays hits median_ms grays_per_s differ ids"
tb conference "$CONF" ${CONF_CAM//--camera-/--}
for obj in sibenik/sibenik dabrovic-sponza/sponza; do
  if [ -f ".data/scenes/$obj.obj" ]; then tb "${obj#*/}" ".data/scenes/$obj.obj"
  else echo "== traversal_bench ${obj#*/}: no .data/scenes/$obj.obj"; fi
done
tb default scenes/default.json
# Instances: the flattened copy's three layouts, then the scene as the renderer traces it
# (row bvh8-instanced, whose hits are reported against the copy's, not checked).
tb instances scenes/instances.json
if command -v python3 > /dev/null && [ -f "$CONF" ]; then
  mkdir -p .data/gen
  python3 tools/assets/gen_instances.py .data/gen/conf16.json --mesh conference="$CONF" --count 16 > /dev/null
  tb conf16 .data/gen/conf16.json --size 1920x1080
fi
if [ -z "$tb_failed" ]; then echo "traversal check: every layout found the BVH2's hits, every scene, size and set"
else echo "traversal check: FAILED on$tb_failed (their stderr above)"; fi
# NCU=1: Nsight Compute of the BVH8 kernel on each of Conference's four sets at 1080p
# (docs/performance.md "Four ray sets"): one launch each, past its warm-up launch
# (traversal_bench runs 16 of each set: primary, mirror and diffuse are k_closest's 1st,
# 2nd and 3rd runs of 16, shadow k_any's 1st).
if [ "${NCU:-0}" = 1 ]; then
  for k in primary:k_closest:1 mirror:k_closest:17 diffuse:k_closest:33 shadow:k_any:1; do
    IFS=: read -r set kern skip <<< "$k"
    ncu_run tb-$set --kernel-name-base demangled --kernel-name "regex:$kern<\\(int\\)8>" --launch-skip "$skip" \
      --launch-count 1 traversal_bench "$CONF" ${CONF_CAM//--camera-/--} --size 1920x1080
    echo "## ncu traversal_bench conference 1080p bvh8 $set"; ncu_summary "$R/ncu-tb-$set.txt"
  done
fi
