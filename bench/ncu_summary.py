#!/usr/bin/env python3
"""Sums an Nsight Compute CSV (ncu --csv --page raw --print-units base) by kernel.

Usage: bench/ncu_summary.py FILE.csv [DIVISOR]

One row per kernel (template arguments kept, parameters dropped): launches, total and
share of the GPU time (gpu__time_duration.sum), and, where the CSV has them, registers a
thread and the time-weighted achieved occupancy, DRAM and SM throughput, and the DRAM
bytes and L2 sectors read, written and operated on atomically (summed). DIVISOR divides
the launches and times (a benchmark that ran the same MSM twice: 2), so the table reads
per operation. bench/gpu_run.sh's profile step runs it on the device.
"""
import csv
import sys


def kernel_key(name):
    name = name.replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
    depth = 0
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0:
            return name[:i].replace("void ", "", 1).strip()
    return name.replace("void ", "", 1).strip()


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    divisor = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    with open(sys.argv[1], newline="") as f:
        rows = [r for r in csv.reader(f)]
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is None:
        sys.exit("ncu_summary: no 'Kernel Name' column in %s" % sys.argv[1])
    cols = rows[head]
    at = {c: i for i, c in enumerate(cols)}
    if "gpu__time_duration.sum" not in at:
        sys.exit("ncu_summary: no gpu__time_duration.sum column")
    # (metric, column, how, scale): "mean" over launches, "weighted" by each launch's time,
    # "sum" over launches (divided by DIVISOR like the times) times scale.
    extra = [("launch__registers_per_thread", "regs", "mean", 1),
             ("sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy %", "weighted", 1),
             ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM %", "weighted", 1),
             ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM %", "weighted", 1),
             ("dram__bytes_read.sum", "DRAM read MB", "sum", 1e-6),
             ("dram__bytes_write.sum", "DRAM write MB", "sum", 1e-6),
             ("lts__t_sectors_op_read.sum", "L2 read Msectors", "sum", 1e-6),
             ("lts__t_sectors_op_write.sum", "L2 write Msectors", "sum", 1e-6),
             ("lts__t_sectors_op_atom.sum", "L2 atomic Msectors", "sum", 1e-6),
             ("lts__t_sectors_op_red.sum", "L2 reduction Msectors", "sum", 1e-6)]
    extra = [e for e in extra if e[0] in at]
    groups = {}
    for r in rows[head + 1:]:
        if len(r) != len(cols):
            continue
        t = number(r[at["gpu__time_duration.sum"]])
        if t is None:  # the units row
            continue
        g = groups.setdefault(kernel_key(r[at["Kernel Name"]]), {"n": 0, "ns": 0.0, "w": {}})
        g["n"] += 1
        g["ns"] += t
        for metric, _, how, _ in extra:
            v = number(r[at[metric]])
            if v is not None:
                acc = g["w"].setdefault(metric, [0.0, 0.0])
                acc[0] += v * (t if how == "weighted" else 1)
                acc[1] += t if how == "weighted" else 1
    total = sum(g["ns"] for g in groups.values())
    print("| kernel | launches | ms | share | " + " | ".join(e[1] for e in extra) + " |")
    print("|---|---|---|---|" + "---|" * len(extra))
    for key, g in sorted(groups.items(), key=lambda kv: -kv[1]["ns"]):
        cells = []
        for metric, _, how, scale in extra:
            acc = g["w"].get(metric)
            if not acc or not acc[1]:
                cells.append("-")
            elif how == "sum":
                cells.append("%.1f" % (acc[0] * scale / divisor))
            else:
                cells.append("%.0f" % (acc[0] / acc[1]))
        print("| %s | %g | %.2f | %.1f%% | %s |" % (key[:90], g["n"] / divisor, g["ns"] / 1e6 / divisor,
                                                  100.0 * g["ns"] / total if total else 0.0,
                                                  " | ".join(cells)))
    print("| all | %g | %.2f | 100%% |%s" % (sum(g["n"] for g in groups.values()) / divisor,
                                             total / 1e6 / divisor, " |" * len(extra)))


if __name__ == "__main__":
    main()
