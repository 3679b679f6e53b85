# Glass under the Whitted integrator (Whitted's ray tree, render/ray_tree.h): frame times
# of scenes/whitted-glass.json at 1080p, depths 8 and 16, every mode (docs/performance.md,
# "Glass under Whitted"); the README's picture of it, into $OUT/pictures/; and, with an
# older binary packed (OLD=...), the Whitted images of scenes without glass from both,
# compared byte for byte (the ray tree must leave them alone).
n=${GLASS_FRAMES:-20}
bench whitted-glass scenes/whitted-glass.json -W 1920 -H 1080 --modes all --depths 8,16 --frames $n > /dev/null
echo "## whitted-glass"
awk '/^mode +launch +depth +median/{f=1} /^$/{if(f)exit} f' "$R/whitted-glass.txt"
P=$OUT/pictures; mkdir -p "$P"
stencilrt render --backend cuda scenes/whitted-glass.json --spp 16 -o "$P/whitted-glass.png" 2>&1 | grep -E "^frame|error"
if [ -x .gpu/bin/stencilrt-old ]; then
  same=0; differ=0
  for m in stencil flags compact pool megakernel regenerate; do
    for s in default cornell-mirror conference; do
      args="scenes/$s.json"; [ $s = default ] && args=""; [ $s = conference ] && args="$CONF $CONF_CAM --accel bvh8"
      for which in old new; do
        b=stencilrt; [ $which = old ] && b=stencilrt-old
        $b render --backend cuda --mode $m $args -W 1920 -H 1080 -d 8 -o "$R/$s-$m-$which.png" > /dev/null 2>&1
      done
      if cmp -s "$R/$s-$m-old.png" "$R/$s-$m-new.png"; then same=$((same + 1)); else differ=$((differ + 1)); echo "DIFFER: $s $m"; fi
      rm -f "$R/$s-$m-"*.png
    done
  done
  echo "whitted images without glass, old vs new binary (default, cornell-mirror, conference; 5 modes; 1080p depth 8): $same identical, $differ differ"
fi
