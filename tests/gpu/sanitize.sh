#!/usr/bin/env bash
# compute-sanitizer over small renders in every mode, with an odd size so the last
# warp is partial. Exits 77 (skipped) where no GPU or no compute-sanitizer exists.
set -u
BIN=${1:?usage: sanitize.sh path/to/stencilrt}
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1 || [ ! -x "$CS" ]; then
  echo "no GPU or no compute-sanitizer: skipped"; exit 77
fi
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fail=0
for tool in memcheck racecheck synccheck initcheck; do
  for mode in stencil flags compact; do
    log="$out/$tool-$mode.log"
    "$CS" --tool "$tool" --error-exitcode 99 "$BIN" render --backend cuda --mode "$mode" \
      -W 67 -H 33 --depth 4 --spp 2 -o "$out/img.png" >"$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    printf '%-10s %-8s rc=%d  %s\n' "$tool" "$mode" "$rc" "$summary"
    if [ $rc -ne 0 ]; then fail=1; tail -30 "$log"; fi
  done
done
exit $fail
