# compute-sanitizer (memcheck, racecheck, synccheck, initcheck) over every mode and
# launch kind at odd sizes (tests/gpu/sanitize.sh; SAN_FILTER picks cases).
bash tests/gpu/sanitize.sh "$(command -v stencilrt)" 2>&1 | tee "$R/sanitize.log" | grep -vE "rc=0 " | head -40
echo "sanitize: $(grep -c 'rc=0 ' "$R/sanitize.log") cases clean, $(grep -cE 'rc=[1-9]' "$R/sanitize.log") failed"
