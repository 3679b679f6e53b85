# The output side on the GPU: a 60-frame camera path at 1080p with its frames/s and
# --stats-json, and an EXR and a PFM from the GPU (they come back in $OUT for exrheader
# on the build machine).
stencilrt render scenes/orbit.json --backend cuda -W 1920 -H 1080 --frames 0..59 -o /tmp/orbit_%04d.png \
  --stats-json "$R/orbit-1080p.json" 2> "$R/orbit-progress.txt" | tail -3
echo "frames written: $(ls /tmp/orbit_*.png | wc -l)"
stencilrt render --backend cuda --spp 4 -o "$OUT/gpu.exr" --exr-pixel float | tail -1
stencilrt render --backend cuda --spp 4 -o "$OUT/gpu.pfm" | tail -1
