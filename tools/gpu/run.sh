#!/usr/bin/env bash
# tools/gpu/run.sh SUITE... - run ON the GPU machine, from the repository root, with .gpu
# and .data carried (tools/gpu/pack.sh makes them; tools/gpu/README.md says what each
# suite is for). Each suite writes its logs to a scratch folder and packs them into
# $OUT/SUITE.tgz; what it prints is the summary the device call hands back.
set -u
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || { echo "usage: tools/gpu/run.sh SUITE... (suites: $(ls tools/gpu/suites | sed 's/\.sh$//' | tr '\n' ' '))" >&2; exit 2; }
source tools/gpu/lib.sh
echo "gpu: $(gpu_line)"
rc=0
for suite in "$@"; do
  f=tools/gpu/suites/$suite.sh
  [ -f "$f" ] || { echo "no suite '$suite'" >&2; rc=2; continue; }
  R=/tmp/gpu-$suite; rm -rf "$R"; mkdir -p "$R"
  echo "######## $suite"
  SECONDS=0
  ( source "$f" ) || rc=1
  echo "######## $suite: ${SECONDS}s"
  tar czf "$OUT/$suite.tgz" -C "$R" --exclude '*.png' . 2>/dev/null
done
exit $rc
