# Instances on the GPU (docs/performance.md, "Instances"). Needs .data with Conference, the
# bunny and the teapot, and the scenes gen_instances.py writes (made here when the GPU
# machine has python3, else carried in .data/gen/):
#   1. compute-sanitizer memcheck: scenes/instances.json in every mode over the BVH8 and
#      the default one over the BVH2, both integrators;
#   2. 16 copies of Conference (5.3 M triangles placed), instanced against --flatten-instances:
#      build, bytes and rays/s (bench, BVH8, stencil), and the primary rays' intersect
#      under Nsight Compute;
#   3. 1,000 placements of Conference, the bunny and the teapot (136 M triangles placed) at
#      1080p, depth 8: it renders, and its bytes against each mesh stored once.
#   4. with .gpu/bin/stencilrt-old, the scenes whose kernels now hold instancing's code
#      (glass under Whitted, spheres in double, the extended materials) and Conference,
#      old against new, alternating.
#   5. (PARTS=hashes, everybit) the kernels' machine code hashed, and those scenes' frames,
#      with whichever binary is packed: an older one in one call, this one in another,
#      where the two do not fit one call's 64 MiB.
# PARTS (default "check perf ab") picks some, to keep a call within its 10 minutes.
PARTS=${PARTS:-check perf ab}
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
G=.data/gen; mkdir -p "$G"
if command -v python3 > /dev/null; then
  python3 tools/assets/gen_instances.py "$G/conf16.json" --mesh conference="$CONF" --count 16
  python3 tools/assets/gen_instances.py "$G/k1000.json" --mesh conference="$CONF" \
    --mesh bunny=.data/meshes/stanford-bunny.obj --mesh teapot=.data/meshes/teapot.obj --count 1000
  python3 tools/assets/gen_instances.py "$G/k3.json" --mesh conference="$CONF" \
    --mesh bunny=.data/meshes/stanford-bunny.obj --mesh teapot=.data/meshes/teapot.obj --count 3
fi
# Every mode over the BVH8, and the BVH2 in the default mode.
part check && for integ in whitted path; do for am in bvh8:stencil bvh8:flags bvh8:compact bvh8:pool bvh8:megakernel \
    bvh8:regenerate bvh2:stencil; do
  accel=${am%:*} m=${am#*:}
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 stencilrt render scenes/instances.json --backend cuda \
    --integrator $integ --accel $accel --mode $m -W 96 -H 54 --depth 4 --spp 2 -o "$R/san.png" > "$R/san-$integ-$accel-$m.log" 2>&1
  echo "memcheck $integ $accel $m rc=$? $(grep -E 'ERROR SUMMARY' "$R/san-$integ-$accel-$m.log")"
done; done
# Instanced against flattened, the same scene and camera.
part perf && for v in inst flat; do
  f=; [ $v = flat ] && f=--flatten-instances
  bench conf16-$v "$G/conf16.json" $f --accel bvh8 --bvh-build sah --modes stencil --depths 1,2,8 --frames 10
  grep -E "^scene|^accel|^bvh" "$R/conf16-$v.txt"
  row stencil conf16-$v; echo
done
# The primary rays' intersect of both, under Nsight Compute (memory workload, warp state).
part perf && for v in inst flat; do
  f=; [ $v = flat ] && f=--flatten-instances
  ncu_run conf16-intersect-$v -k regex:k_stencil_write --launch-skip 1 --launch-count 1 \
    stencilrt render "$G/conf16.json" $f --accel bvh8 --bvh-build sah --backend cuda --launch stream --depth 1 -o /tmp/x.png
  ncu_summary "$R/ncu-conf16-intersect-$v.txt" | head -24
done
part perf && for s in k1000 k3; do
  stencilrt render "$G/$s.json" --backend cuda --accel bvh8 -W 1920 -H 1080 --depth 8 -o "$R/$s.png" \
    --stats-json "$R/$s.stats.json" > "$R/$s.log" 2>&1
  echo "render $s rc=$?"; grep -E "^scene|^bvh|^stages|^frame|memory" "$R/$s.log"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['scene']; print(' device_bytes', d['device_bytes'], 'instances', d.get('instances'))" "$R/$s.stats.json" 2>/dev/null
done
# The binary's kernels, each one's machine code hashed (cuobjdump -sass): run once with an
# older binary packed as stencilrt and once with this one, the lists say which kernels
# changed; and the frames of the scenes whose kernels hold instancing's code, 3 rounds.
if part hashes; then
  cuobjdump -sass "$(command -v stencilrt)" > "$R/sass.txt" 2>&1
  python3 - "$R/sass.txt" > "$OUT/sass-hashes.txt" <<'PY'
import hashlib, re, sys
name, body = None, []
def flush():
    if name: print(hashlib.sha1("".join(body).encode()).hexdigest()[:16], name)
for line in open(sys.argv[1]):
    m = re.match(r"\s+Function : (\S+)", line)
    if m:
        flush(); name, body = m.group(1), []
    elif name:
        body.append(line)
flush()
PY
  rm -f "$R/sass.txt"  # tens of MB: the hashes are what comes back
  echo "hashes: $(wc -l < "$OUT/sass-hashes.txt") kernels"
fi
part everybit && for k in 1 2 3; do
  bench glass-$k scenes/whitted-glass.json --modes stencil,megakernel --depths 2,8 --frames 20 > /dev/null
  bench bigsphere-$k scenes/big-sphere.json --modes stencil,megakernel --depths 2,8 --frames 20 > /dev/null
  bench materials-$k scenes/materials.json --integrator path --modes stencil,megakernel --depths 2,8 --frames 20 > /dev/null
  bench conference-$k "$CONF" $CONF_CAM --accel bvh8 --modes stencil,megakernel --depths 2,8 --frames 20 > /dev/null
  for sc in glass bigsphere materials conference; do for m in stencil megakernel; do
    printf 'round %d %-10s %-10s:' $k $sc $m; row $m $sc-$k; echo
  done; done
done
{ part ab && [ -x .gpu/bin/stencilrt-old ]; } || return 0
for k in 1 2; do for which in old new; do
  SRT=stencilrt; [ $which = old ] && SRT=stencilrt-old; export SRT
  bench glass-$which-$k scenes/whitted-glass.json --modes stencil,megakernel --depths 2,8 --frames 20 > /dev/null
  bench bigsphere-$which-$k scenes/big-sphere.json --modes stencil,megakernel --depths 2,8 --frames 20 > /dev/null
  bench materials-$which-$k scenes/materials.json --integrator path --modes stencil,megakernel --depths 2,8 --frames 20 > /dev/null
  bench conference-$which-$k "$CONF" $CONF_CAM --accel bvh8 --modes stencil,megakernel --depths 2,8 --frames 20 > /dev/null
  for sc in glass bigsphere materials conference; do for m in stencil megakernel; do
    printf '%s round %d %-10s %-10s:' $which $k $sc $m; row $m $sc-$which-$k; echo
  done; done
done; done
unset SRT
