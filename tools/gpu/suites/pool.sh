# The pool against compaction, with Nsight Compute (docs/performance.md "The pool"): the
# path-traced Cornell box at 1080p, depth 16, 4 samples, stream launches; the intersect and
# shade kernels of each, at their 11th and 12th launches (mid-frame: the pool's queues then
# mix the samples' camera rays with deep bounces). ncu_summary prints the figures quoted.
CB=$PWD/.data/scenes/cornell-box
args="--backend cuda --launch stream $CB/CornellBox-Original.obj -i path -d 16 --spp 4 -o /tmp/x.png"
for k in k_pool_intersect k_pool_shade k_compact_write k_compact_read; do
  mode=pool; [ "${k#k_compact}" != "$k" ] && mode=compact
  ncu_run pool-$k --kernel-name regex:$k --launch-skip 10 --launch-count 2 stencilrt render --mode $mode $args
  echo "## ncu $k ($mode)"; ncu_summary "$R/ncu-pool-$k.txt"
done
