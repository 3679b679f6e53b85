# An older binary against this one, in one call on one machine (pack.sh with OLD=...):
# frames on the default scene and Conference (BVH8) in the modes AB_MODES (default
# stencil), rounds alternating against drift (ROUNDS, default 2). AB_SUITE=bvh runs that
# suite for each binary instead.
[ -x .gpu/bin/stencilrt-old ] || { echo "ab: no .gpu/bin/stencilrt-old (pack with OLD=...)"; return 1; }
# "all" as bench takes it, spelled out for the rows printed per mode.
[ "${AB_MODES:-}" = all ] && AB_MODES=stencil,flags,compact,pool,megakernel,regenerate
for k in $(seq 1 "${ROUNDS:-2}"); do
  for which in old new; do
    SRT=stencilrt; [ $which = old ] && SRT=stencilrt-old
    export SRT
    if [ -n "${AB_SUITE:-}" ]; then
      echo "#### $which, round $k"; R0=$R; R=$R0/$which-$k; mkdir -p "$R"; source "tools/gpu/suites/$AB_SUITE.sh"; R=$R0
      continue
    fi
    bench default-$which-$k --modes ${AB_MODES:-stencil} --depths 1,2,8,12 --frames 30 > /dev/null
    bench conference-$which-$k "$CONF" $CONF_CAM --accel bvh8 --modes ${AB_MODES:-stencil} --depths 1,2,8 --frames 20 > /dev/null
    for m in $(echo "${AB_MODES:-stencil}" | tr , " "); do
      printf '%s round %d %-10s default:' $which $k $m; row $m default-$which-$k
      printf ' | conference:'; row $m conference-$which-$k; echo
    done
  done
done
unset SRT
