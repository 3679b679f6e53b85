#!/usr/bin/env bash
# compute-sanitizer over small renders in every mode and both launch kinds (a CUDA
# graph with device-side loops, and stream launches), at odd sizes so the last warp is
# partial: 67x33, 1x1, 961x1, 33x17; and memcheck and initcheck of stencil, megakernel and
# regenerate graphs over a mesh in the BVH8 at the same sizes. memcheck, synccheck and initcheck run every case.
# racecheck runs the stream launches only: under racecheck, stencilrt's graphs end the
# process with SIGSEGV before any output, in every mode, while a minimal nested WHILE
# graph (tools/gpu/repro/while_node.cu) passes. racecheck checks shared memory, which the
# traversals' short stacks use when configured (accel/traversal_stack.h); the kernels of
# both launch kinds are the same. racecheck also runs stream launches of every mode over
# the BVH8 mesh. Every tool runs the path integrator's kernels in every mode over
# scenes/glass.json ("path" cases), and Whitted's ray tree in every mode over
# scenes/whitted-glass.json at depth 3, where trees outlast the bounce loop and its tail
# (k_path_tail) finishes them ("glass" cases), and the kernels of --kill under both
# integrators ("kill": the default scene, random kills; "killpath": scenes/glass.json,
# block kills), and the stencil's two ways through the path integrator's later bounces,
# packed from the first bounce on ("pathpack", SRT_PACK_LANES=33) and the tail
# ("pathtail", SRT_PACK_LANES=0), and the path integrator's kernels drawing from the
# scrambled samplers ("sobol", "zsobol", render/sampler.h), and the environment map under
# both integrators ("env", "envwhitted": scenes/environment.json), and glTF's BRDF and rough
# glass ("materials": scenes/materials.json), and a mesh's normal map, emission texture and
# texture transforms ("maps"). The path modes (megakernel, regenerate) and the stencil's path tail
# (every case here is small enough for it to take over after bounce 0) are in every tool's
# cases. Cases run one at a time
# (SAN_JOBS): with 12 concurrent
# memcheck processes, graphs with IF/ELSE nodes hit error 700 in 11 of 12 while each
# passes alone (docs/robustness.md). Exits 77 (skipped) where no GPU or no
# compute-sanitizer exists. SAN_RENDER_ARGS adds flags to every render (e.g. --accel bvh4);
# SAN_FILTER (an extended regex over "tool mode launch size [bvh8]") runs some cases only.
set -u
BIN=${1:?usage: sanitize.sh path/to/stencilrt}
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1 || [ ! -x "$CS" ]; then
  echo "no GPU or no compute-sanitizer: skipped"; exit 77
fi
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export BIN CS out SRC
one() {  # tool mode launch size
  local log="$out/$1-$2-$3-$4.log"
  # A fifth field "bvh8": the case over a mesh in the BVH8 (its path kernels need more
  # than the default per-thread stack, cuda_executor.cu reserve_stack).
  local args=${SAN_RENDER_ARGS:-}
  [ "${5:-}" = bvh8 ] && args="--accel bvh8 $SRC/scenes/mesh.json" && log="$out/$1-$2-$3-$4-bvh8.log"
  # "path": the path integrator's kernels, over glass, a rough conductor and an area light.
  [ "${5:-}" = path ] && args="--integrator path $SRC/scenes/glass.json" && log="$out/$1-$2-$3-$4-path.log"
  local depth=4
  # "glass": Whitted's ray tree, deeper than the loop's 3 steps.
  [ "${5:-}" = glass ] && args="$SRC/scenes/whitted-glass.json" && depth=3 && log="$out/$1-$2-$3-$4-glass.log"
  # "kill", "killpath": the kill's kernels (render/kill.h), Whitted's and the path integrator's.
  [ "${5:-}" = kill ] && args="--kill ray:0.6" && log="$out/$1-$2-$3-$4-kill.log"
  local pack=
  [ "${5:-}" = pathpack ] && args="--integrator path $SRC/scenes/glass.json" && pack=33 &&
    log="$out/$1-$2-$3-$4-pathpack.log"
  [ "${5:-}" = pathtail ] && args="--integrator path $SRC/scenes/glass.json" && pack=0 &&
    log="$out/$1-$2-$3-$4-pathtail.log"
  [ "${5:-}" = killpath ] && args="--integrator path --kill block2:0.7 $SRC/scenes/glass.json" &&
    log="$out/$1-$2-$3-$4-killpath.log"
  # "env", "envwhitted": the environment map (scenes/environment.json) under both integrators.
  [ "${5:-}" = env ] && args="--integrator path $SRC/scenes/environment.json" && log="$out/$1-$2-$3-$4-env.log"
  # "materials": glTF's BRDF and rough glass, lit through the glass (scenes/materials.json).
  [ "${5:-}" = materials ] && args="--integrator path $SRC/scenes/materials.json" && log="$out/$1-$2-$3-$4-materials.log"
  # "maps": a mesh with a normal map, a textured emission and a base colour, each laid by
  # its own KHR_texture_transform, under the sky (tests/data/textures/maps-quad.gltf).
  [ "${5:-}" = maps ] && args="--integrator path --env $SRC/assets/env/sky.hdr $SRC/tests/data/textures/maps-quad.gltf" &&
    log="$out/$1-$2-$3-$4-maps.log"
  [ "${5:-}" = envwhitted ] && args="--integrator whitted $SRC/scenes/environment.json" && depth=3 &&
    log="$out/$1-$2-$3-$4-envwhitted.log"
  # "sobol", "zsobol": the path integrator's kernels drawing from the scrambled samplers.
  case "${5:-}" in sobol|zsobol) args="--integrator path --sampler $5 $SRC/scenes/glass.json"
    log="$out/$1-$2-$3-$4-$5.log" ;; esac
  env ${pack:+SRT_PACK_LANES=$pack} timeout "${SAN_CASE_TIMEOUT:-300}" "$CS" --tool "$1" --error-exitcode 99 "$BIN" render --backend cuda --mode "$2" \
    --launch "$3" -W "${4%x*}" -H "${4#*x}" --depth $depth --spp 2 $args -o "$out/$1-$2-$3-$4${5:+-$5}.png" >"$log" 2>&1
  local rc=$?
  printf '%-10s %-8s %-6s %-6s %-4s rc=%d  %s\n' "$1" "$2" "$3" "$4" "${5:-}" "$rc" \
    "$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)"
  [ $rc -eq 0 ] || { grep -m 30 -E "=========" "$log" | sed "s|^|  [$1 $2 $3 $4] |"; return 1; }
}
export -f one
for tool in memcheck racecheck synccheck initcheck; do
  for mode in stencil flags compact pool megakernel regenerate; do
    for launch in graph stream; do
      [ "$tool" = racecheck ] && [ "$launch" = graph ] && continue
      for size in 67x33 1x1 961x1 33x17; do echo "$tool $mode $launch $size"; done
    done
  done
  [ "$tool" = racecheck ] || [ "$tool" = synccheck ] || for mode in stencil pool megakernel regenerate; do
    for size in 67x33 1x1 961x1 33x17; do echo "$tool $mode graph $size bvh8"; done; done
  [ "$tool" = racecheck ] && for mode in stencil flags compact pool megakernel regenerate; do for size in 67x33 33x17; do
    echo "$tool $mode stream $size bvh8"; done; done
  for mode in stencil flags compact pool megakernel regenerate; do
    for launch in graph stream; do
      [ "$tool" = racecheck ] && [ "$launch" = graph ] && continue
      for size in 67x33 33x17; do
        for kind in path glass kill killpath sobol zsobol env envwhitted materials maps; do echo "$tool $mode $launch $size $kind"; done
        [ "$mode" = stencil ] && for kind in pathpack pathtail; do echo "$tool $mode $launch $size $kind"; done
      done
    done
  done
done | grep -E -- "${SAN_FILTER:-.}" | xargs -P "${SAN_JOBS:-1}" -L 1 bash -c 'one "$@"' _
# xargs exits 123 when any case failed.
