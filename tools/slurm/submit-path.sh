#!/usr/bin/env bash
# submit-path.sh - render a scene's camera path on a Slurm cluster as a job array
# (docs/cluster.md).
#   submit-path.sh [--gpu] [--chunk N] [--frames A..B] [--array LIST] SCENE OUT_PATTERN [render flags...]
# --gpu asks each task for one GPU (--gres=gpu:1) and renders with --backend cuda; without
# it tasks render on the CPU. --chunk sets frames per task (default: 8), --frames a
# sub-range (default: the whole path, from `stencilrt render SCENE --frame-count`),
# --array a list of task indices to run again (as check-frames.sh prints). A final
# job, after every task has ended, runs check-frames.sh. Prints the two job ids.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${SRT_BIN:-$(command -v stencilrt || echo "$here/../../build/stencilrt")}
gpu=0; chunk=8; frames=""; array=""
while [ $# -gt 0 ]; do
    case "$1" in
        --gpu) gpu=1; shift ;;
        --chunk) chunk=$2; shift 2 ;;
        --frames) frames=$2; shift 2 ;;
        --array) array=$2; shift 2 ;;
        *) break ;;
    esac
done
scene=${1:?usage: submit-path.sh [--gpu] [--chunk N] [--frames A..B] [--array LIST] SCENE OUT_PATTERN [render flags...]}
out=${2:?}; shift 2
scene=$(cd "$(dirname "$scene")" && pwd)/$(basename "$scene")
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
mkdir -p "$(dirname "$out")"
if [ -z "$frames" ]; then
    count=$("$bin" render "$scene" --frame-count)
    frames="0..$(( count - 1 ))"
fi
first=${frames%..*}; last=${frames#*..}
tasks=$(( (last - first + chunk) / chunk ))
[ -n "$array" ] || array="0-$(( tasks - 1 ))"
args="$*"
gres=()
if [ "$gpu" = 1 ]; then gres=(--gres=gpu:1); args="--backend cuda $args"; else args="--backend cpu $args"; fi
log=$(dirname "$out")/slurm-%A_%a.log
jid=$(sbatch --parsable --array="$array" "${gres[@]}" -o "$log" \
    --export=ALL,SRT_BIN="$bin",SRT_SCENE="$scene",SRT_FIRST="$first",SRT_LAST="$last",SRT_CHUNK="$chunk",SRT_OUT="$out",SRT_ARGS="$args" \
    "$here/render-array.sbatch")
cid=$(sbatch --parsable --dependency=afterany:"$jid" -o "$(dirname "$out")/check-%j.log" \
    --wrap "bash '$here/check-frames.sh' '$out' $first $last $chunk")
echo "array $jid ($tasks tasks of $chunk frames, frames $first..$last), check $cid"
