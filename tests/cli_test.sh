#!/usr/bin/env bash
# Command-line behaviour: help, version, exit codes, and "nothing written on error".
# usage: cli_test.sh STENCILRT SOURCE_DIR SHARED_DATA
set -u
BIN=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
check() {  # check NAME EXPECTED_RC PATTERN -- command...
  local name=$1 want=$2 pat=$3; shift 4
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "FAIL $name: rc=$rc (want $want), output:"; echo "$out" | head -20; fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}
check version 0 "^stencilrt [0-9]+\.[0-9]+" -- "$BIN" --version
check help 0 "render" -- "$BIN" --help
for c in render view bench; do check "help-$c" 0 "Usage|usage|USAGE" -- "$BIN" $c --help; done
check no-command 2 "render|subcommand" -- "$BIN"
check unknown-flag 2 "--bogus|bogus" -- "$BIN" render --bogus
check bad-width 2 "width|-W" -- "$BIN" render --width 0 -o "$tmp/a.png"
check bad-mode 2 "mode" -- "$BIN" render --mode fast -o "$tmp/a.png"
check bad-backend 2 "backend" -- "$BIN" render --backend opencl -o "$tmp/a.png"
check bad-accel 2 "accel" -- "$BIN" render --accel bvh3 -o "$tmp/a.png"
check bad-vec 2 "--camera-from" -- "$BIN" render --camera-from 1,2 -o "$tmp/a.png"
check missing-scene 2 "nope.json" -- "$BIN" render "$tmp/nope.json" -o "$tmp/a.png"
printf '{ "camera": { "from": [0, 0, 5], "fov": "wide" } }\n' > "$tmp/bad.json"
check bad-json 2 "bad.json:1:[0-9]+" -- "$BIN" render "$tmp/bad.json" -o "$tmp/a.png"
[ ! -e "$tmp/a.png" ] || { echo "FAIL: an output was written on error"; fails=$((fails + 1)); }
check over-input 2 "refusing" -- "$BIN" render "$tmp/bad.json" -o "$tmp/bad.json"
check render-cpu 0 "$tmp/ok.png" -- "$BIN" render --backend cpu -W 48 -H 27 --depth 3 -o "$tmp/ok.png"
[ -s "$tmp/ok.png" ] || { echo "FAIL: render wrote no PNG"; fails=$((fails + 1)); }
ls "$tmp" | grep -q "tmp-" && { echo "FAIL: temporary file left behind"; fails=$((fails + 1)); }
check render-scene 0 "ok2.png" -- "$BIN" render "$SRC/scenes/cornell-mirror.json" --backend cpu -W 40 -H 30 -o "$tmp/ok2.png"
# The BVH4 gives the BVH2's image, byte for byte, through the whole command.
check render-bvh4 0 "bvh4.png" -- "$BIN" render "$SRC/scenes/mesh.json" --accel bvh4 --backend cpu -W 64 -H 48 -o "$tmp/bvh4.png"
check render-bvh2 0 "bvh2.png" -- "$BIN" render "$SRC/scenes/mesh.json" --accel bvh2 --backend cpu -W 64 -H 48 -o "$tmp/bvh2.png"
cmp -s "$tmp/bvh4.png" "$tmp/bvh2.png" || { echo "FAIL: --accel bvh4 and bvh2 wrote different PNGs"; fails=$((fails + 1)); }
check render-bvh8 0 "bvh8.png" -- "$BIN" render "$SRC/scenes/mesh.json" --accel bvh8 --backend cpu -W 64 -H 48 -o "$tmp/bvh8.png"
cmp -s "$tmp/bvh8.png" "$tmp/bvh2.png" || { echo "FAIL: --accel bvh8 and bvh2 wrote different PNGs"; fails=$((fails + 1)); }
check bad-splits 2 "spatial-splits" -- "$BIN" render --spatial-splits maybe -o "$tmp/s.png"
check render-nosplits 0 "nosplits.png" -- "$BIN" render "$SRC/scenes/mesh.json" --spatial-splits off --backend cpu -W 64 -H 48 -o "$tmp/nosplits.png"
cmp -s "$tmp/nosplits.png" "$tmp/bvh2.png" || { echo "FAIL: --spatial-splits off and on wrote different PNGs"; fails=$((fails + 1)); }
check bad-texture-filter 2 "texture-filter" -- "$BIN" render --texture-filter anisotropic -o "$tmp/f.png"
[ -e "$tmp/f.png" ] && { echo "FAIL: a bad --texture-filter left a file"; fails=$((fails + 1)); }
# The full images by default; from the mip chains a far floor is smoother, so the PNG differs.
check render-bilinear 0 "" -- "$BIN" render "$SRC/scenes/textured.json" --backend cpu -W 96 -H 54 --depth 2 -o "$tmp/t0.png"
check render-bilinear-flag 0 "" -- "$BIN" render "$SRC/scenes/textured.json" --texture-filter bilinear --backend cpu -W 96 -H 54 --depth 2 -o "$tmp/t1.png"
check render-trilinear 0 "" -- "$BIN" render "$SRC/scenes/textured.json" --texture-filter trilinear --backend cpu -W 96 -H 54 --depth 2 -o "$tmp/t2.png"
cmp -s "$tmp/t0.png" "$tmp/t1.png" || { echo "FAIL: the default texture filter is not bilinear"; fails=$((fails + 1)); }
cmp -s "$tmp/t0.png" "$tmp/t2.png" && { echo "FAIL: --texture-filter trilinear changed nothing"; fails=$((fails + 1)); }
echo "cli: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
