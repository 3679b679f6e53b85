# The environment map's figures (docs/performance.md, "The environment map"):
# scenes/environment.json path-traced at 1080p, depth 8, every mode, under our own sky
# (assets/env/sky.hdr) and under Poly Haven's quarry (../shared/data/env: a sun of six
# texels holds 47% of its power), with rays/s and SIMD efficiency per bounce; the
# converged picture; and, with NCU=1, Nsight Compute of path regeneration on it.
n=${ENV_FRAMES:-20}
QUARRY=$PWD/.data/env/quarry_01_1k.hdr
bench env-sky scenes/environment.json --integrator path --modes all --depths 8 --frames $n > /dev/null
[ -f "$QUARRY" ] && bench env-quarry scenes/environment.json --env "$QUARRY" --integrator path --modes all --depths 8 \
  --frames $n > /dev/null
for b in env-sky env-quarry; do
  [ -f "$R/$b.txt" ] || continue
  echo "## $b"
  awk '/^mode +launch +depth +median/{f=1} /^$/{if(f)exit} f' "$R/$b.txt"
  grep -iE "simd|bounce" "$R/$b.txt" | head -24
done
P=$OUT/pictures; mkdir -p "$P"
stencilrt render --backend cuda scenes/environment.json --spp 1024 -W 1280 -H 720 -o "$P/environment.png" 2>&1 |
  grep -E "^frame|^sky|error"
[ -f "$QUARRY" ] && stencilrt render --backend cuda scenes/environment.json --env "$QUARRY" --spp 1024 -W 1280 -H 720 \
  -o "$P/environment-quarry.png" 2>&1 | grep -E "^frame|^sky|error"
if [ "${NCU:-0}" = 1 ]; then
  ncu_run env-regenerate --kernel-name regex:k_regenerate --launch-skip 1 --launch-count 1 \
    stencilrt render --backend cuda --launch stream scenes/environment.json -i path -d 8 --mode regenerate -o /tmp/x.png
  echo "## ncu env-sky regenerate"; ncu_summary "$R/ncu-env-regenerate.txt"
fi
