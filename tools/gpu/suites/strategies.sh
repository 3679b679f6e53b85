# The dead-ray strategies side by side, the figures of the README's "Which strategy wins"
# and docs/performance.md: every mode with graph launches, on the default scene and on
# Conference (BVH8), at 1080p and 4K; and the SIMD efficiency of path regeneration over
# 16 samples. (No matplotlib there: plot the JSONs here with tools/plot_bench.py.)
table() { grep -E "^(stencil|flags|compact|megakernel|regenerate) +graph " "$R/$1.txt"; }
bench default-1080p --modes all --depths 1..12; table default-1080p
bench default-4k -W 3840 -H 2160 --modes all --depths 1,2,4,8 --frames 20; table default-4k
bench conference-1080p "$CONF" $CONF_CAM --accel bvh8 --modes all --depths 1,2,4,8 --frames 20
table conference-1080p
bench conference-4k "$CONF" $CONF_CAM --accel bvh8 -W 3840 -H 2160 --modes all --depths 1,2,8 --frames 10
table conference-4k
bench spp16 --modes stencil,megakernel,regenerate --spp 16 --depths 1,8 --frames 10; table spp16
