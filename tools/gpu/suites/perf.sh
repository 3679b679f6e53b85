# The figures of docs/performance.md and the README's headline, from one run:
# tools/bench/perf_tables.py turns the JSONs ($OUT/perf.tgz) into the document's tables.
#   default        every mode, depths 1..12, graph and stream launches (the main sweep)
#   default-4k/8k  larger frames; conference, conference-4k: Conference in the BVH8
#   spp16          16 samples a pixel: path regeneration's SIMD efficiency
#   default-32x1   rows instead of 8x4 tiles; skip, skip-1080p: dead rays skipped per second
#   tune, default-tuned   the launch-size tuning and a sweep with its table
frame_ms() { awk '/^mode +launch +depth +median/{f=1;next} /^$/{f=0} f && $2=="graph"' "$R/$1.txt" |
  awk '{printf "  %-10s d%-2s %.3f ms %7.0f FPS  SIMD %s\n", $1, $3, $4, $9, $NF}'; }
bench default --modes all --depths 1..12 --launch both; frame_ms default | grep -E " d(1|8) "
bench default-4k -W 3840 -H 2160 --modes all --depths 1,2,4,8 --frames 20; frame_ms default-4k | grep -E " d(1|8) "
bench default-8k -W 7680 -H 4320 --modes stencil,flags,megakernel --depths 8 --frames 10
bench conference "$CONF" $CONF_CAM --accel bvh8 --modes all --depths 1,2,4,8 --frames 20
frame_ms conference | grep -E " d(1|2) "
bench conference-4k "$CONF" $CONF_CAM --accel bvh8 -W 3840 -H 2160 --modes all --depths 1,2,8 --frames 10
bench spp16 --modes stencil,megakernel,regenerate --spp 16 --depths 1,8 --frames 10; frame_ms spp16
bench default-32x1 --warp-shape 32x1 --modes stencil --depths 1..8
bench skip --skip
bench skip-1080p --skip --skip-rays 2073600
bench tune --tune
TUNED=1 bench default-tuned --depths 1..8
