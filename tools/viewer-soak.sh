#!/usr/bin/env bash
# tools/viewer-soak.sh [seconds] [-- extra view args] - the viewer under a long scripted run.
#
# Runs `stencilrt view` (default --backend cpu) under xvfb-run for about `seconds`
# (default 600) with an input script that keeps flying and turning the camera,
# changing the depth, the dead-ray mode and the stencil overlay, and resizing the
# window. Samples the process's resident memory (VmRSS) every few seconds, and the
# GPU memory (nvidia-smi) where there is one. Fails when the viewer exits with an
# error, prints a GL error, or its memory grows by more than SRT_SOAK_MAX_GROWTH
# percent (default 20) over the largest figure seen during the warm-up (the first
# fifth of the run, and at least two rounds of the window sizes, so every size has
# been allocated before the baseline is taken).
#
#   tools/viewer-soak.sh 60                              # CI: 60 s, CPU backend
#   tools/viewer-soak.sh 600 -- --backend cuda           # GPU machine: VRAM too
#
# Environment: SRT_BINARY (default build/stencilrt, else build-*/stencilrt),
# The soak ends at `seconds` with SIGTERM (the frame count is set high from a short
# calibration run); it fails if the viewer exits with an error before that.
# SRT_SOAK_USE_DISPLAY=1 (use $DISPLAY instead of xvfb-run), SRT_SOAK_DIR (work dir,
# default a temporary one), SRT_SOAK_INTERVAL (seconds between samples, default 3).
set -euo pipefail

secs=${1:-600}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
extra=("$@")
if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -lt 10 ]; then
    echo "usage: $0 [seconds >= 10] [-- extra view args]" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
max_growth=${SRT_SOAK_MAX_GROWTH:-20}
interval=${SRT_SOAK_INTERVAL:-3}

bin=${SRT_BINARY:-}
if [ -z "$bin" ]; then
    for b in "$root"/build/stencilrt "$root"/build-*/stencilrt; do
        [ -x "$b" ] && { bin=$b; break; }
    done
fi
[ -n "$bin" ] && [ -x "$bin" ] || { echo "viewer-soak: no stencilrt binary (set SRT_BINARY)" >&2; exit 2; }

work=${SRT_SOAK_DIR:-$(mktemp -d /tmp/srt-soak-XXXXXX)}
mkdir -p "$work"

# The CPU backend unless the extra args choose one.
backend=(--backend cpu)
for a in "${extra[@]}"; do
    case "$a" in --backend|--backend=*|-b) backend=() ;; esac
done

# ---------------------------------------------------------------------------
# Input script: a 40-frame cycle, repeated. Depth goes up two cycles and down two,
# the window takes five sizes in turn, `R` brings the camera home every cycle so it
# never flies off to where nothing is hit.
# ---------------------------------------------------------------------------
make_script() {  # make_script FRAMES FILE
    awk -v frames="$1" 'BEGIN {
        split("320 240 480 270 200 150 640 360 256 256", sz, " ");
        for (c = 0; c * 40 < frames; ++c) {
            f = c * 40;
            printf "frame %d key W press\nframe %d key W release\n", f, f + 6;
            printf "frame %d button right press\n", f + 6;
            for (i = 7; i <= 10; ++i) printf "frame %d mouse 15 5\n", f + i;
            printf "frame %d button right release\n", f + 11;
            printf "frame %d key %s press\nframe %d key %s release\n", f + 12, (c % 4 < 2) ? "]" : "[", f + 13, (c % 4 < 2) ? "]" : "[";
            printf "frame %d key M press\nframe %d key M release\n", f + 14, f + 15;
            printf "frame %d key V press\nframe %d key V release\n", f + 16, f + 17;
            k = (c % 5) * 2;
            printf "frame %d resize %d %d\n", f + 18, sz[k + 1], sz[k + 2];
            printf "frame %d key D press\nframe %d key D release\n", f + 20, f + 26;
            printf "frame %d key E press\nframe %d key E release\n", f + 26, f + 29;
            printf "frame %d scroll 1\nframe %d scroll -1\n", f + 30, f + 31;
            printf "frame %d key R press\nframe %d key R release\n", f + 34, f + 35;
        }
    }' > "$2"
}

# Runs the viewer for N frames in the background; sets $viewer_wrapper and $viewer_pid.
start_viewer() {  # start_viewer FRAMES SCRIPT LOG
    local cmd=("$bin" view "${backend[@]}" --width 320 --height 240 --no-vsync --frames "$1"
               --input-script "$2" "${extra[@]}")
    if [ "${SRT_SOAK_USE_DISPLAY:-0}" = 1 ]; then
        "${cmd[@]}" >"$3" 2>&1 &
        viewer_wrapper=$!
        viewer_pid=$viewer_wrapper
    else
        command -v xvfb-run >/dev/null || { echo "viewer-soak: xvfb-run not installed" >&2; exit 2; }
        xvfb-run -a -s "-screen 0 1280x1024x24" "${cmd[@]}" >"$3" 2>&1 &
        viewer_wrapper=$!
        viewer_pid=
        for _ in $(seq 1 200); do  # xvfb-run starts the command as its child
            viewer_pid=$(pgrep -P "$viewer_wrapper" -x stencilrt || true)
            [ -n "$viewer_pid" ] && break
            kill -0 "$viewer_wrapper" 2>/dev/null || break
            sleep 0.1
        done
    fi
}

gpu_mem_mib() {  # memory.used of our process (or of the whole GPU), MiB; empty without nvidia-smi
    command -v nvidia-smi >/dev/null || return 0
    local v
    v=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null |
        awk -F', *' -v p="$1" '$1 == p { print $2 }' | head -1)
    [ -n "$v" ] || v=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1)
    echo "$v" | tr -d ' '
}

gl_errors() { grep -E 'GL error|GL_INVALID|GL_OUT_OF_MEMORY|error:|ERROR|Sanitizer' "$1" || true; }

# ---------------------------------------------------------------------------
# Calibration: 120 frames of the same script, to turn seconds into frames.
# ---------------------------------------------------------------------------
make_script 120 "$work/calib.txt"
start_viewer 120 "$work/calib.txt" "$work/calib.log"
rc=0
wait "$viewer_wrapper" || rc=$?
fps=$(sed -n 's/.*average fps=\([0-9.]*\).*/\1/p' "$work/calib.log" | tail -1)
if [ "$rc" -ne 0 ] || [ -z "$fps" ] || [ -n "$(gl_errors "$work/calib.log")" ]; then
    echo "viewer-soak: calibration run failed (exit $rc):" >&2
    tail -20 "$work/calib.log" >&2
    exit 1
fi
# Twice the calibrated count (the calibration includes start-up, so it reads low):
# the run is ended at `seconds` by SIGTERM, or ends by itself if the viewer is slower.
frames=$(awk -v f="$fps" -v s="$secs" 'BEGIN { n = int(2 * f * s); print (n < 200 ? 200 : n) }')
echo "viewer-soak: $bin view ${backend[*]} ${extra[*]}"
echo "viewer-soak: calibration ${fps} fps -> $frames frames for ${secs} s (log and samples in $work)"

# ---------------------------------------------------------------------------
# The soak run, sampled.
# ---------------------------------------------------------------------------
make_script "$frames" "$work/script.txt"
start_viewer "$frames" "$work/script.txt" "$work/soak.log"
[ -n "$viewer_pid" ] || { echo "viewer-soak: the viewer did not start" >&2; cat "$work/soak.log" >&2; exit 1; }
samples="$work/samples.tsv"
printf 't_s\trss_kib\tgpu_mib\n' >"$samples"
t0=$(date +%s)
deadline=$((t0 + secs))
stopped=0
while kill -0 "$viewer_pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$viewer_pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && printf '%d\t%s\t%s\n' $(( $(date +%s) - t0 )) "$rss" "$(gpu_mem_mib "$viewer_pid")" >>"$samples"
    if [ "$(date +%s)" -gt "$deadline" ]; then
        kill -TERM "$viewer_pid" 2>/dev/null || true
        stopped=1
        break
    fi
    sleep "$interval"
done
rc=0
wait "$viewer_wrapper" || rc=$?
elapsed=$(( $(date +%s) - t0 ))

# ---------------------------------------------------------------------------
# Verdict
# ---------------------------------------------------------------------------
status=0
errs=$(gl_errors "$work/soak.log")
if [ -n "$errs" ]; then
    echo "viewer-soak: FAIL: errors in the viewer's output:" >&2
    echo "$errs" | head -20 >&2
    status=1
fi
if [ "$stopped" -eq 1 ]; then
    echo "viewer-soak: stopped at the time limit with SIGTERM, as planned"
elif [ "$rc" -ne 0 ]; then
    echo "viewer-soak: FAIL: the viewer exited with status $rc" >&2
    tail -20 "$work/soak.log" >&2
    status=1
fi
# Warm-up: the first fifth of the samples, and at least two rounds of the five window
# sizes (400 frames at the calibrated rate), at most half of them.
warm=$(awk -v f="$fps" -v i="$interval" 'BEGIN { w = int(400 / f / i) + 1; print w }')
summary=$(awk -F'\t' -v total="$elapsed" -v maxg="$max_growth" -v warm="$warm" '
    NR == 1 { next }
    { t[n] = $1; r[n] = $2; g[n] = $3; n++ }
    END {
        if (n < 4) { print "FAIL only " n " memory samples"; exit }
        w = int(n / 5); if (w < warm) w = warm; if (w > int(n / 2)) w = int(n / 2);
        base = 0; for (i = 0; i < w; ++i) if (r[i] > base) base = r[i];
        peak = 0; for (i = w; i < n; ++i) if (r[i] > peak) peak = r[i];
        growth = 100.0 * (peak - base) / base;
        gb = 0; gp = 0; have_gpu = 0;
        for (i = 0; i < n; ++i) if (g[i] != "") have_gpu = 1;
        if (have_gpu) {
            for (i = 0; i < w; ++i) if (g[i] + 0 > gb) gb = g[i] + 0;
            for (i = w; i < n; ++i) if (g[i] + 0 > gp) gp = g[i] + 0;
        }
        verdict = growth > maxg ? "FAIL" : "ok";
        if (have_gpu && gb > 0 && 100.0 * (gp - gb) / gb > maxg) verdict = "FAIL";
        printf "%s %d samples over %d s; RSS first sample %.1f MiB, after warm-up (max of first %d) %.1f MiB, peak after %.1f MiB, final %.1f MiB: growth %+.1f%% (limit %d%%)",
               verdict, n, total, r[0] / 1024, w, base / 1024, peak / 1024, r[n - 1] / 1024, growth, maxg;
        if (have_gpu) printf "; GPU memory after warm-up %d MiB, peak after %d MiB, final %s MiB", gb, gp, g[n - 1];
        printf "\n";
    }' "$samples")
echo "viewer-soak: ${summary#* }"
case "$summary" in FAIL*) status=1 ;; esac
sed -n 's/^viewer: \([0-9]* frames in .*\)/viewer-soak: viewer: \1/p' "$work/soak.log"
[ "$status" -eq 0 ] && echo "viewer-soak: PASS" || echo "viewer-soak: FAIL (log: $work/soak.log)" >&2
[ "$status" -eq 0 ] && [ -z "${SRT_SOAK_DIR:-}" ] && rm -rf "$work"
exit "$status"
