#!/usr/bin/env python3
"""peak_rss.py COMMAND [ARGUMENTS…]: runs the command three times (its output
discarded) and prints the largest peak resident set of the three, in KB
(getrusage's ru_maxrss of the finished child, through wait4)."""
import os
import subprocess
import sys

peaks = []
for _ in range(3):
    process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"{sys.argv[1]} failed (status {status})")
    peaks.append(usage.ru_maxrss)
print(max(peaks))
