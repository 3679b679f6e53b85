# How soon Conference's image comes from the command (docs/performance.md, "The viewer's
# first frame"): `render` at 1080p and `view --frames 1` at 1280x720 (carry .x11 for the
# view; without it only render runs), `--bvh-build ploc`, 5 runs each, each line with its
# stages; with .gpu/bin/stencilrt-old (pack.sh OLD=...) the two binaries alternate and
# their images are compared.
bins=new; [ -x .gpu/bin/stencilrt-old ] && bins="old new"
bin_of() { [ "$1" = old ] && echo stencilrt-old || echo stencilrt; }
ms_now() { echo $(( $(date +%s%N) / 1000000 )); }
for i in 1 2 3 4 5; do for b in $bins; do
  s=$(ms_now); $(bin_of $b) render "$CONF" $CONF_CAM --backend cuda --bvh-build ploc --width 1920 --height 1080 --depth 8 \
    -o "$R/render-$b.png" > "$R/render-$b.log" 2>&1
  echo "$b render rc=$? $(( $(ms_now) - s )) ms | $(grep -E '^stages' "$R/render-$b.log")"
done; done
[ "$bins" = "old new" ] && cmp "$R/render-old.png" "$R/render-new.png" && echo "render: same image"
[ -d .x11 ] || return 0
source .x11/gpu-x11-start.sh .x11 > "$R/x11.log" 2>&1 || { echo "firstframe: X server did not start"; return 1; }
for i in 1 2 3 4 5; do for b in $bins; do
  s=$(ms_now); $(bin_of $b) view "$CONF" $CONF_CAM --backend cuda --bvh-build ploc --width 1280 --height 720 --frames 1 \
    --no-vsync > "$R/view-$b.log" 2>&1
  echo "$b view rc=$? $(( $(ms_now) - s )) ms | $(grep -E '^bvh|first frame' "$R/view-$b.log" | tr '\n' ' ')"
done; done
