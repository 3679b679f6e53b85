#!/usr/bin/env python3
"""Sums Nsight Compute's per-kernel figures over a frame: one CSV per frame
(ncu --csv --page details --print-details all, sections as tools/gpu/lib.sh's
NCU_SECTIONS, plus --metrics dram__bytes.sum,smsp__inst_executed.sum).

One CSV is one frame: suites/ncu-modes.sh profiles only the timed frame of the three
that `stencilrt render` runs.

Per frame: kernels profiled, GPU time, instructions executed, DRAM bytes, occupancy
and active threads per warp weighted by time, warp cycles per issued instruction and
the top stall reasons weighted by instructions. Then the kernels that took the time.
usage: ncu_frame.py FRAME.csv...
"""
import csv
import os
import sys
from collections import defaultdict

TIME = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6, "nsecond": 1e-3}
BYTES = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def number(v):
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return None


def kernels(path):
    rows = []
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    by_id = {}
    for r in csv.DictReader(lines):
        k = by_id.setdefault(r["ID"], {"name": r["Kernel Name"].split("(")[0].split("<")[0], "m": {}})
        name, unit, val = r["Metric Name"], r.get("Metric Unit", ""), number(r["Metric Value"])
        if val is None or name in k["m"]:
            continue
        if name == "Duration":
            val *= TIME.get(unit, 1.0)  # -> microseconds
        if name == "dram__bytes.sum":
            val *= BYTES.get(unit, 1.0)
        k["m"][name] = val
    return list(by_id.values())


def summary(path):
    ks = kernels(path)
    t = sum(k["m"].get("Duration", 0.0) for k in ks)
    inst = sum(k["m"].get("smsp__inst_executed.sum", 0.0) for k in ks)
    dram = sum(k["m"].get("dram__bytes.sum", 0.0) for k in ks)
    def tw(name):
        return sum(k["m"].get(name, 0.0) * k["m"].get("Duration", 0.0) for k in ks) / t if t else 0.0
    def iw(name):
        return sum(k["m"].get(name, 0.0) * k["m"].get("smsp__inst_executed.sum", 0.0) for k in ks) / inst if inst else 0.0
    stalls = defaultdict(float)
    for k in ks:
        for n, v in k["m"].items():
            if n.startswith("Stall "):
                stalls[n[6:]] += v * k["m"].get("smsp__inst_executed.sum", 0.0) / (inst or 1.0)
    top = sorted(stalls.items(), key=lambda x: -x[1])[:4]
    frame = os.path.basename(path).rsplit(".", 1)[0]
    print(f"{frame:28s} {len(ks):3d} kernels {t:9.1f} us  {inst / 1e6:8.1f} M inst  {dram / 1e6:8.1f} MB DRAM  "
          f"occupancy {tw('Achieved Occupancy'):5.1f}%  threads/warp {tw('Avg. Active Threads Per Warp'):4.1f}  "
          f"cycles/issue {iw('Warp Cycles Per Issued Instruction'):5.1f}  stalls: "
          + ", ".join(f"{n} {v:.1f}" for n, v in top))
    by_name = defaultdict(lambda: [0, 0.0, 0.0])
    for k in ks:
        e = by_name[k["name"]]
        e[0] += 1
        e[1] += k["m"].get("Duration", 0.0)
        e[2] += k["m"].get("smsp__inst_executed.sum", 0.0)
    for n, (c, d, i) in sorted(by_name.items(), key=lambda x: -x[1][1])[:4]:
        print(f"    {n:32s} x{c:<3d} {d:9.1f} us {i / 1e6:8.1f} M inst")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        try:
            summary(p)
        except Exception as e:  # one bad file must not hide the others
            print(f"{p}: {e}")
