# The GPU tests (label gpu): the CUDA executor against the CPU executor, every mode,
# launch kind and layout, bit for bit. Run before committing anything that touches CUDA.
srt_gpu_tests > "$R/gpu_tests.log" 2>&1
echo "srt_gpu_tests rc=$?"
grep -E "^\[[a-z0-9 =_-]+\]|^\[  (PASSED|FAILED|SKIPPED)|FAILED|Failure" "$R/gpu_tests.log" | head -60
