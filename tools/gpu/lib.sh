# Sourced by tools/gpu/run.sh ON the GPU machine: what every suite needs, written once.
#   R        a scratch folder for logs (packed into $OUT/SUITE.tgz at the end)
#   CONF     Conference's OBJ, unpacked; CONF_CAM its benchmark camera and light;
#            conf_path_scene FILE writes it as a JSON scene lit by an area light
#   bench    NAME ARGS...: stencilrt bench on the GPU, text, JSON and CSV under $R (SRT: the
#            binary, default stencilrt; TUNED=1: with this GPU's tuning cache)
#   ncu_run  NAME ARGS...: Nsight Compute with the sections this project reads
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .gpu/env.sh 2>/dev/null
export SRT_SHARED_DATA=$PWD/.data SRT_SOURCE_DIR=$PWD XDG_CACHE_HOME=/tmp/srt-cache
for f in .data/scenes/*/*.obj.xz; do [ -f "$f" ] && [ ! -f "${f%.xz}" ] && xz -dk "$f"; done
CONF=$PWD/.data/scenes/conference/conference.obj
CONF_CAM="--camera-from 1600,500,90 --camera-at 200,100,10 --camera-up 0,1,0 --fov 75 --light 600,600,50"
# conf_path_scene FILE: Conference for the path integrator, as a JSON scene: the benchmark
# camera, the OBJ's own materials, and for light a white panel of 1000 x 80 just under the
# ceiling (y = 640, facing down, radiance 8), where the benchmark's point light is.
conf_path_scene() {
  cat > "$1" <<JSON
{
  "camera": {"from": [1600, 500, 90], "at": [200, 100, 10], "up": [0, 1, 0], "fov": 75},
  "render": {"integrator": "path"},
  "materials": {"panel": {"colour": [0.8, 0.8, 0.8], "kd": 1.0, "emission": [8, 8, 8]}},
  "objects": [
    {"type": "mesh", "file": "$CONF"},
    {"type": "triangle", "v0": [200, 640, 10], "v1": [1200, 640, 10], "v2": [1200, 640, 90], "material": "panel"},
    {"type": "triangle", "v0": [200, 640, 10], "v1": [1200, 640, 90], "v2": [200, 640, 90], "material": "panel"}
  ]
}
JSON
}
gpu_line() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader; }
bench() {
  local name=$1; shift
  local tuning=--no-tuning; [ "${TUNED:-0}" = 1 ] && tuning=
  ${SRT:-stencilrt} bench --backend cuda --no-progress $tuning "$@" \
    --json "$R/$name.json" --csv "$R/$name.csv" > "$R/$name.txt" 2>&1
  echo "== bench $name (rc=$?): $*"
}
NCU_SECTIONS="--section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats \
--section SchedulerStats --section SpeedOfLight --section InstructionStats"
# Durations close to real ones: no cache flush, no fixed clocks (docs in tools/gpu/README.md).
ncu_run() {
  local name=$1; shift
  ncu --cache-control none --clock-control none $NCU_SECTIONS --print-details all "$@" > "$R/ncu-$name.txt" 2>&1
  echo "== ncu $name (rc=$?)"
}
# " dD MS" for each depth of MODE in the main table of bench NAME's text.
row() { awk '/^mode +launch +depth +median/{f=1;next} /^$/{f=0} f' "$R/$2.txt" | awk -v m="$1" '$1==m && $2=="graph" {printf " d%s %.3f", $3, $4}'; }
# The figures of an ncu report this project quotes, one line each.
ncu_summary() {
  grep -E "^  [a-z_]+<|^  k_|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|Executed Instructions  |Compute \(SM\) Throughput|Issued Warp Per Scheduler|Local Memory Spilling Requests  |Stall (Long Scoreboard|Wait|Not Selected|Math Pipe|Barrier|Branch Resolving) " "$1"
}
