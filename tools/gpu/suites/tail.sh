# Where the stencil wavefront should hand its last bounces to the path tail
# (k_path_tail): the default scene and Conference (BVH8) at 1080p for tail
# thresholds from never (0) to every bounce after the first (4294967295, the default).
# TAILS overrides the list; SRT=stencilrt-old measures an older binary (suite ab's).
for t in ${TAILS:-0 128 4096 16384 4294967295}; do
  SRT_TAIL_WORDS=$t bench default-tail$t --modes stencil --depths 1,2,4,8,12 --frames 30 > /dev/null
  SRT_TAIL_WORDS=$t bench conference-tail$t "$CONF" $CONF_CAM --accel bvh8 --modes stencil --depths 2,4,8 --frames 20 > /dev/null
  printf 'tail %-10s default:' "$t"; row stencil default-tail$t
  printf ' | conference:'; row stencil conference-tail$t; echo
done
