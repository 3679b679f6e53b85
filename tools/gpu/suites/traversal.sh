# The traversal kernels alone (traversal_bench, tools/traversal-bench): BVH2, BVH4 and BVH8
# on four ray sets (primary, shadow, mirror, diffuse) at its default sizes (1024x768,
# 1920x1080, 3840x2160), with --check (every layout must find the BVH2's hits): Conference
# from the benchmark's camera and light (CONF_CAM), Sibenik and Sponza from their own
# cameras (where .data has them) and the default scene. Each scene's rows are printed
# (size layout set rays hits median_ms grays_per_s differ ids); its output, stderr and JSON
# stay in $R/tb-NAME.txt, .err and .json. The last line is the check's result.
tb_failed=
tb() {
  local name=$1; shift
  traversal_bench "$@" --check --json "$R/tb-$name.json" > "$R/tb-$name.txt" 2> "$R/tb-$name.err"
  local rc=$?
  echo "== traversal_bench $name (rc=$rc): $*"
  grep -m1 -E '^# .*: [0-9]+ triangles' "$R/tb-$name.txt"
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
if [ -z "$tb_failed" ]; then echo "traversal check: every layout found the BVH2's hits, every scene, size and set"
else echo "traversal check: FAILED on$tb_failed (their stderr above)"; fi
