# An older binary against this one, in one call on one machine (tools/gpu/pack.sh with
# OLD=...): the stencil wavefront's frames on the default scene and Conference (BVH8),
# rounds alternating against drift (ROUNDS, default 2).
[ -x .gpu/bin/stencilrt-old ] || { echo "ab: no .gpu/bin/stencilrt-old (pack with OLD=...)"; return 1; }
for k in $(seq 1 "${ROUNDS:-2}"); do
  for which in old new; do
    SRT=stencilrt; [ $which = old ] && SRT=stencilrt-old
    SRT=$SRT bench default-$which-$k --modes stencil --depths 1,2,8,12 --frames 30 > /dev/null
    SRT=$SRT bench conference-$which-$k "$CONF" $CONF_CAM --accel bvh8 --modes stencil --depths 1,2,8 --frames 20 > /dev/null
    printf '%s round %d  default:' $which $k; grep -E "^stencil +graph " "$R/default-$which-$k.txt" | awk '{printf " d%s %.3f", $3, $4}'
    printf ' | conference:'; grep -E "^stencil +graph " "$R/conference-$which-$k.txt" | awk '{printf " d%s %.3f", $3, $4}'; echo
  done
done
