#!/usr/bin/env bash
# tools/fuzz.sh [seconds-per-target] - fuzz the scene loaders with libFuzzer.
#
# Builds one libFuzzer binary per parser (tests/fuzz/fuzz_{json,obj,nff,ply,gltf,texture,hdr,kill}.cpp) with
# clang++ directly, ASan + UBSan on, from the loader sources (src/scene/*.cpp and
# src/core/*.cpp), then runs each for N seconds (default 60), as many at once as there
# are cores, over the seed corpus in tests/fuzz/corpus/<target>. Prints the runs per
# target; exits non-zero on any
# finding (crash, leak, UB, timeout, out-of-memory, or an exception other than
# srt::InputError). Findings are kept in build-fuzz/findings/.
#
# Environment: CXX_FUZZ (default clang++-14, else clang++), SRT_FUZZ_DIR (default
# build-fuzz), SRT_FUZZ_TARGETS (default "json obj nff ply gltf texture hdr kill").
set -euo pipefail

secs=${1:-60}
if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -lt 1 ]; then
    echo "usage: $0 [seconds-per-target]" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=${SRT_FUZZ_DIR:-$root/build-fuzz}
targets=${SRT_FUZZ_TARGETS:-json obj nff ply gltf texture hdr kill}
cxx=${CXX_FUZZ:-$(command -v clang++-14 || command -v clang++ || true)}
if [ -z "$cxx" ]; then
    echo "fuzz.sh: clang++ not found (Debian: apt-get install clang-14)" >&2
    exit 2
fi

mkdir -p "$out/obj" "$out/findings" "$out/logs"
common=(-std=c++17 -g -O1 -fno-omit-frame-pointer -ffp-contract=off
        -fsanitize=address,undefined -fno-sanitize-recover=undefined
        -I"$root/src" -I/usr/include
        -DGLM_FORCE_XYZW_ONLY -DGLM_FORCE_SILENT_WARNINGS '-DSRT_VERSION="fuzz"'
        $(pkg-config --cflags OpenEXR))

# Library objects: instrumented for coverage (fuzzer-no-link), no main.
echo "fuzz.sh: building with $cxx in $out"
t_build=$(date +%s)
# The loaders and what they use (textures: libpng and libjpeg); not the image writers
# (png.cpp, OpenEXR), which no loader calls.
srcs=("$root"/src/scene/*.cpp "$root"/src/render/kill.cpp)
for f in "$root"/src/core/*.cpp; do
    case "$(basename "$f")" in png.cpp|image_formats.cpp|output_file.cpp) ;; *) srcs+=("$f") ;; esac
done
objs=()
pids=()
jobs_max=$(nproc 2>/dev/null || echo 2)
for src in "${srcs[@]}"; do
    o="$out/obj/$(basename "$(dirname "$src")")_$(basename "$src" .cpp).o"
    objs+=("$o")
    if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ -n "$(find "$root/src" -name '*.h' -newer "$o" -print -quit)" ]; then
        "$cxx" "${common[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$o" &
        pids+=($!)
        while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
    fi
done
for p in "${pids[@]}"; do wait "$p"; done
pids=()
for t in $targets; do
    # The OBJ target compares the reader with its serial reference (tests/support).
    extra=()
    [ "$t" = obj ] && extra=("$root/tests/support/obj_serial.cpp")
    "$cxx" "${common[@]}" -fsanitize=fuzzer -I"$root/tests/fuzz" -I"$root/tests" \
        "$root/tests/fuzz/fuzz_$t.cpp" "${extra[@]}" "${objs[@]}" -ltinygltf -lpng -ljpeg $(pkg-config --libs OpenEXR) -lpthread -o "$out/fuzz_$t" &
    pids+=($!)
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
done
for p in "${pids[@]}"; do wait "$p"; done
echo "fuzz.sh: build took $(( $(date +%s) - t_build )) s"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# One target's run, then its summary line in $out/logs/fuzz_$t.summary (1 for a finding).
fuzz_one() {
    local t=$1
    # libFuzzer adds new inputs to the first corpus directory: a scratch one, so the
    # seed corpus in the repository stays as it was committed.
    local work="$out/corpus-$t"
    mkdir -p "$work"
    local log="$out/logs/fuzz_$t.log"
    local dict=()
    [ -f "$root/tests/fuzz/$t.dict" ] && dict=(-dict="$root/tests/fuzz/$t.dict")
    local rc=0
    "$out/fuzz_$t" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -max_total_time="$secs" \
        -print_final_stats=1 -artifact_prefix="$out/findings/$t-" "${dict[@]}" \
        "$work" "$root/tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
    local runs cov corpus found
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    [ -n "$runs" ] || runs=$(grep -o '^#[0-9]* *DONE' "$log" | grep -o '[0-9]*' | tail -1 || true)
    cov=$(grep -o 'DONE *cov: [0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    corpus=$(find "$work" -type f | wc -l)
    found=$(find "$out/findings" -name "$t-*" -type f | wc -l)
    local line="fuzz_$t: ${runs:-?} runs in $secs s, coverage ${cov:-?} edges, $corpus new corpus inputs, rc $rc"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        line="$line: FINDING ($found artifact(s) in $out/findings)"
        grep -E 'ERROR|SUMMARY|unexpected|validation|runtime error|Test unit written' "$log" | head -20 >&2 || true
    fi
    echo "$line" >"$out/logs/fuzz_$t.summary"
}

rm -f "$out"/logs/*.summary
# The targets run side by side, one a core: each still gets its $secs seconds of one
# core, and CI's 2 cores finish them in half the time.
for t in $targets; do
    echo "fuzz.sh: fuzz_$t for $secs s (log: $out/logs/fuzz_$t.log)"
    fuzz_one "$t" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
done
wait
status=0
summary=()
for t in $targets; do
    line=$(cat "$out/logs/fuzz_$t.summary" 2>/dev/null || echo "fuzz_$t: no summary: FINDING (the run did not finish)")
    case "$line" in *FINDING*) status=1 ;; esac
    summary+=("$line")
done

echo
printf '%s\n' "${summary[@]}"
[ "$status" -eq 0 ] && echo "fuzz.sh: no findings" || echo "fuzz.sh: FINDINGS - see above" >&2
exit "$status"
