# Where the stencil should hand its bounces to compaction (cuda/kernels.cuh, PACKED): the
# threshold of live lanes per live word below which the rest of a sample runs packed,
# from never (0: the dense first bounce, then the path tail) to always (33: packed after
# the first bounce), on the workloads whose paths end one by one: the path-traced Cornell
# box, with glass spheres and with water (depth 16) and Conference (BVH8, depth 8), 16
# samples; and the default scene under random and block kills at 0.5 (depth 8).
# 1920x1080, graph launches, stencil; compaction, the megakernel and path regeneration
# once for scale. PACKS overrides the list.
CB=$PWD/.data/scenes/cornell-box
n=${PACK_FRAMES:-5}
conf_path_scene "$R/conference-path-scene.json"
for t in ${PACKS:-0 8 16 24 32 33}; do
  modes=stencil; [ "$t" = 0 ] && modes=stencil,compact,megakernel,regenerate
  SRT_PACK_LANES=$t bench pack$t-cornell "$CB/CornellBox-Original.obj" -i path --depths 16 --spp 16 --modes $modes \
    --frames $n > /dev/null
  SRT_PACK_LANES=$t bench pack$t-glass "$CB/CornellBox-Sphere.obj" -i path --depths 16 --spp 16 --modes $modes \
    --frames $n > /dev/null
  SRT_PACK_LANES=$t bench pack$t-water "$CB/CornellBox-Water.obj" -i path --depths 16 --spp 16 --modes $modes \
    --frames $n > /dev/null
  SRT_PACK_LANES=$t bench pack$t-conference "$R/conference-path-scene.json" --accel bvh8 -i path --depths 8 --spp 16 \
    --modes $modes --frames $n > /dev/null
  for k in ray block4; do
    SRT_PACK_LANES=$t bench pack$t-kill-$k --kill $k:0.5 --depths 8 --modes $modes --frames $((n * 4)) > /dev/null
  done
done
for t in ${PACKS:-0 8 16 24 32 33}; do
  printf 'pack %-3s' "$t"
  for w in cornell glass water conference kill-ray kill-block4; do printf ' | %s:' "$w"; row stencil pack$t-$w; done; echo
done
for w in cornell glass water conference kill-ray kill-block4; do
  printf "%-12s compact:" "$w"; row compact pack0-$w; printf " megakernel:"; row megakernel pack0-$w
  printf " regenerate:"; row regenerate pack0-$w; echo
done
