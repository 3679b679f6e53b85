#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine (Debian 12's slurm-wlm and munge):
# start munged, slurmctld and slurmd on localhost with a private configuration, submit a
# 12-frame CPU camera path as an array of 3 tasks (tools/slurm/submit-path.sh), wait
# with a bounded timeout, require every frame to be byte-identical to a local render,
# then remove a frame and check that check-frames.sh names the task to run again, and
# that running that task alone brings the frame back. The daemons are stopped on exit.
# Skips (77) with the reason when not root or when Slurm or munge is not installed.
#   test_slurm_array.sh STENCILRT SOURCE_DIR
set -uo pipefail
bin=${1:?usage: test_slurm_array.sh STENCILRT SOURCE_DIR}; src=${2:?}
for p in munged slurmctld slurmd sbatch squeue; do
    command -v "$p" >/dev/null 2>&1 || { echo "SKIP: $p not installed (Debian: slurmctld slurmd slurm-client munge)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: starting slurmctld/slurmd for a private cluster needs root"; exit 77; }

T=$(mktemp -d /tmp/srt-slurm-XXXXXX)
cleanup() {
    for f in slurmd slurmctld; do [ -f "$T/$f.pid" ] && kill "$(cat "$T/$f.pid")" 2>/dev/null; done
    [ -f "$T/munge/munged.pid" ] && kill "$(cat "$T/munge/munged.pid")" 2>/dev/null
    sleep 1
    rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for l in "$T"/log/*.log; do echo "--- $l"; tail -5 "$l"; done; exit 1; }

mkdir -p "$T/state" "$T/spool" "$T/log" "$T/munge" "$T/out" "$T/local"
chmod 700 "$T/munge"
head -c 1024 /dev/urandom > "$T/munge/munge.key"; chmod 400 "$T/munge/munge.key"
munged --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.sock" --pid-file="$T/munge/munged.pid" \
    --log-file="$T/log/munged.log" --seed-file="$T/munge/seed" || fail "munged did not start"
host=$(hostname -s)
port=$(( 20000 + RANDOM % 20000 ))
cat > "$T/slurm.conf" <<CONF
ClusterName=srttest
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$(( port + 1 ))
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=10 State=UP
CONF
export SLURM_CONF=$T/slurm.conf
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for _ in $(seq 1 30); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo -h -o %t | grep -q idle || fail "the node never became idle"

wait_jobs() {  # every job of the cluster gone, within $1 seconds
    for _ in $(seq 1 "$1"); do [ -z "$(squeue -h 2>/dev/null)" ] && return 0; sleep 1; done
    return 1
}
args=(-W 96 -H 54 --depth 4)
submit=$(SRT_BIN=$bin bash "$src/tools/slurm/submit-path.sh" --chunk 4 --frames 0..11 "$src/scenes/orbit.json" \
    "$T/out/f_%04d.png" "${args[@]}") || fail "submit-path.sh failed"
echo "$submit"
wait_jobs 120 || fail "the jobs did not finish in 120 s"
grep -q "12 of 12 present" "$T"/out/check-*.log || fail "check-frames: $(cat "$T"/out/check-*.log)"
ls "$T"/out/slurm-*_{0,1,2}.log >/dev/null 2>&1 || fail "three array tasks did not run"

"$bin" render "$src/scenes/orbit.json" --backend cpu --frames 0..11 -o "$T/local/f_%04d.png" "${args[@]}" >/dev/null 2>&1 \
    || fail "the local render failed"
for f in "$T"/local/f_*.png; do
    cmp -s "$f" "$T/out/$(basename "$f")" || fail "$(basename "$f") differs from the local render"
done
echo "12 frames from 3 Slurm tasks == the local render, byte for byte"

# A lost frame: check-frames names its task, and that task alone brings it back.
rm "$T/out/f_0005.png"
out=$(bash "$src/tools/slurm/check-frames.sh" "$T/out/f_%04d.png" 0 11 4); rc=$?
[ $rc -eq 1 ] && grep -q "missing frames: 5" <<<"$out" && grep -q -- "--array=1" <<<"$out" || fail "check-frames: rc $rc, $out"
SRT_BIN=$bin bash "$src/tools/slurm/submit-path.sh" --chunk 4 --frames 0..11 --array 1 "$src/scenes/orbit.json" \
    "$T/out/f_%04d.png" "${args[@]}" >/dev/null || fail "resubmit failed"
wait_jobs 120 || fail "the resubmitted task did not finish"
cmp -s "$T/local/f_0005.png" "$T/out/f_0005.png" || fail "the re-rendered frame 5 differs"
bash "$src/tools/slurm/check-frames.sh" "$T/out/f_%04d.png" 0 11 4 || fail "check-frames after the resubmit"
echo "PASS"
