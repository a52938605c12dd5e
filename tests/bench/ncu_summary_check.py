#!/usr/bin/env python3
"""bench/ncu_summary.py on a small Nsight Compute CSV written here (the layout of
`ncu --csv --page raw --print-units base`: notes, a header row, a units row, a row a
launch): the launches of one kernel summed, the sums divided by DIVISOR, time-weighted
means weighted by time, the byte and sector columns summed, a kernel's template
arguments kept and its parameters dropped. Exits non-zero on the first difference."""
import os
import subprocess
import sys
import tempfile

script = sys.argv[1]
rows = [
    '==PROF== Connected to process 1',
    '"ID","Kernel Name","gpu__time_duration.sum","launch__registers_per_thread",'
    '"sm__warps_active.avg.pct_of_peak_sustained_active","dram__bytes_read.sum",'
    '"lts__t_sectors_op_write.sum"',
    '"","","ns","register/thread","%","byte","sector"',
    '"0","void (anonymous namespace)::k_a<512, 16, 1>(unsigned int *, int)","1,000,000","106",'
    '"40","2,000,000","1,000,000"',
    '"1","void (anonymous namespace)::k_b(float)","3000000","32","80","500000","0"',
    '"2","void (anonymous namespace)::k_a<512, 16, 1>(unsigned int *, int)","3000000","106",'
    '"60","6000000","3000000"',
]
want = [
    "| kernel | launches | ms | share | regs | occupancy % | DRAM read MB | L2 write Msectors |",
    "|---|---|---|---|---|---|---|---|",
    # k_a: 2 launches / 2, (1 + 3) ms / 2, occupancy (40 * 1 + 60 * 3) / 4 = 55,
    # (2e6 + 6e6) B / 2 = 4 MB, (1e6 + 3e6) sectors / 2 = 2 M; k_b: 3 ms / 2.
    "| k_a<512, 16, 1> | 1 | 2.00 | 57.1% | 106 | 55 | 4.0 | 2.0 |",
    "| k_b | 0.5 | 1.50 | 42.9% | 32 | 80 | 0.2 | 0.0 |",
    "| all | 1.5 | 3.50 | 100% | | | | |",
]
with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
    f.write("\n".join(rows) + "\n")
try:
    out = subprocess.run([sys.executable, script, f.name, "2"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
finally:
    os.unlink(f.name)
if out != want:
    print("ncu_summary.py's table differs:\n got:\n  " + "\n  ".join(out) + "\n want:\n  " +
          "\n  ".join(want))
    sys.exit(1)
print("ncu_summary.py: %d rows as expected" % len(want))
