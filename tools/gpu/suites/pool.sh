# The pool against compaction (docs/performance.md "The pool"): the path-traced Cornell box
# at 1080p, depth 16, stream launches with --stats: each stage's time at 1 and 16 samples;
# then Nsight Compute of each's intersect and shade kernels at their 11th and 12th launches
# of a 4-sample frame (mid-frame: the pool's queues then mix the samples' camera rays with
# deep bounces). ncu_summary prints the figures quoted.
CB=$PWD/.data/scenes/cornell-box
for spp in 1 16; do
  for mode in compact pool; do
    echo "## stages: $mode, $spp spp"
    stencilrt render --backend cuda --launch stream --stats --mode $mode "$CB/CornellBox-Original.obj" -i path -d 16 \
      --spp $spp -o /tmp/x.png 2>&1 | grep -E "^  [a-z]+ +[0-9.]+ ms|frame|rays"
  done
done
args="--backend cuda --launch stream $CB/CornellBox-Original.obj -i path -d 16 --spp 4 -o /tmp/x.png"
for k in k_pool_intersect k_pool_shade k_pool_reflect k_compact_write k_compact_read; do
  mode=pool; [ "${k#k_compact}" != "$k" ] && mode=compact
  ncu_run pool-$k --kernel-name regex:$k --launch-skip 10 --launch-count 2 stencilrt render --mode $mode $args
  echo "## ncu $k ($mode)"; ncu_summary "$R/ncu-pool-$k.txt"
done
