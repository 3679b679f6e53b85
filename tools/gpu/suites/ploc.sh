# PLOC, the GPU builder (docs/performance.md, "The GPU builder"): its GPU tests (the GPU's
# tree is the host's, bit for bit; frames through it are the CPU's), its build on
# Conference, Sibenik, Sponza and the bunny (render's bvh line, each builder), the
# traversal of its tree against the SAH's on Conference's four ray sets
# (traversal_bench), and Nsight Compute over a round's kernels.
srt_gpu_tests --gtest_filter='GpuPloc*' > "$R/tests.txt" 2>&1; echo "== GpuPloc tests (rc=$?)"
grep -E "^\[gpu (ploc|collapse)|FAILED|PASSED" "$R/tests.txt"
# Warm builds to the BVH4 and the BVH8, 7 of each scene (each repeat builds the BVH2, the
# BVH4 and then the BVH8, so no wide build is a process's first): the steps, and the
# device's part.
srt_gpu_tests --gtest_filter='GpuPloc.TheGpuClustersAsTheHostDoes' --gtest_repeat=7 > "$R/builds.txt" 2>&1
echo "== warm builds (rc=$?)"; grep -E "^\[gpu ploc bvh[48]\] (conference|200k)" "$R/builds.txt"
# Where the clustering's last rounds go to one block (SRT_PLOC_TAIL clusters; the tree is
# the same at any): Conference's BVH8 build, 3 warm builds each.
for t in ${PLOC_TAILS:-1024 2048 4096}; do
  SRT_PLOC_TAIL=$t srt_gpu_tests --gtest_filter='GpuPloc.TheGpuClustersAsTheHostDoes' --gtest_repeat=3 > "$R/tail-$t.txt" 2>&1
  echo "== SRT_PLOC_TAIL=$t (rc=$?)"; grep -E "^\[gpu ploc bvh8\] conference" "$R/tail-$t.txt" | sed 's/.*(allocate/(allocate/'
done
for s in "$CONF" .data/scenes/sibenik/sibenik.obj .data/scenes/dabrovic-sponza/sponza.obj .data/meshes/stanford-bunny.obj; do
  for b in ploc sah; do
    stencilrt render "$s" --bvh-build $b --accel bvh8 --backend cuda -W 640 -H 360 --depth 1 -o /tmp/x.png > "$R/render.txt" 2>&1
    printf '%-12s %-4s ' "$(basename "$s" .obj)" "$b"; grep -E "^bvh" "$R/render.txt" | cut -c1-700
  done
done
for b in sah ploc; do
  traversal_bench "$CONF" --from 1600,500,90 --at 200,100,10 --fov 75 --light 600,600,50 --size 1920x1080 \
    --bvh-build $b --check > "$R/traversal-$b.txt" 2>&1
  echo "== traversal_bench conference --bvh-build $b (rc=$?)"; cat "$R/traversal-$b.txt"
done
ncu_run ploc-rounds -k regex:'k_round|k_tail|k_morton|k_leaves|k_centroid' --launch-count 12 \
  stencilrt render "$CONF" --bvh-build ploc --backend cuda -W 64 -H 64 --depth 1 -o /tmp/x.png
ncu_summary "$R/ncu-ploc-rounds.txt" | head -60
# The collapse's kernels: the counts, and the levels (the largest of them).
ncu_run ploc-collapse -k regex:'k_count|k_level|k_first' --launch-count 16 \
  stencilrt render "$CONF" --bvh-build ploc --accel bvh8 --backend cuda -W 64 -H 64 --depth 1 -o /tmp/x.png
ncu_summary "$R/ncu-ploc-collapse.txt" | head -60
# compute-sanitizer over the builder's kernels (memcheck, racecheck for the rounds' and
# the tail's shared memory, synccheck, initcheck), on every scene of the GPU-equals-host
# tests.
for tool in memcheck racecheck synccheck initcheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 srt_gpu_tests \
    --gtest_filter='GpuPloc.TheGpuClustersAsTheHostDoes:GpuPloc.TheGpuCollapsesAsTheHostDoes' \
    > "$R/sanitize-$tool.txt" 2>&1
  echo "== compute-sanitizer $tool (rc=$?): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/sanitize-$tool.txt" | tail -1)"
done
