#!/usr/bin/env bash
# check-frames.sh - after a camera-path job array (docs/cluster.md): does every frame
# exist, how long did the tasks take, and which array indices must run again.
#   check-frames.sh OUT_PATTERN FIRST LAST CHUNK
# Prints the missing frames and the `--array=` list that renders exactly those again;
# exit 0 when every frame exists, 1 otherwise. Runs as the array's last step
# (submit-path.sh adds it with --dependency=afterany) or by hand.
set -uo pipefail
pattern=${1:?usage: check-frames.sh OUT_PATTERN FIRST LAST CHUNK}
first=${2:?}; last=${3:?}; chunk=${4:?}
missing=(); tasks=()
for (( f = first; f <= last; ++f )); do
    # shellcheck disable=SC2059
    file=$(printf "$pattern" "$f")
    if [ ! -s "$file" ]; then
        missing+=("$f")
        t=$(( (f - first) / chunk ))
        [[ " ${tasks[*]-} " == *" $t "* ]] || tasks+=("$t")
    fi
done
dir=$(dirname "$pattern")
total=0; frames=0; rays=0
for s in "$dir"/stats_task_*.json; do
    [ -f "$s" ] || continue
    read -r w n r < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["summary"]; print(s["wall_s"], s["frames"], s["rays_traced"])' "$s")
    total=$(python3 -c "print($total + $w)"); frames=$(( frames + n )); rays=$(( rays + r ))
done
echo "frames $first..$last: $(( last - first + 1 - ${#missing[@]} )) of $(( last - first + 1 )) present"
echo "tasks: $frames frames rendered in ${total} s of task time, $rays rays"
if (( ${#missing[@]} )); then
    echo "missing frames: ${missing[*]}"
    echo "render them again: resubmit with --array=$(IFS=,; echo "${tasks[*]}")"
    exit 1
fi
exit 0
