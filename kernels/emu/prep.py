#!/usr/bin/env python3
"""Copies the suite's .cu files into OUT_DIR as host C++ for the emulator:
a launch `k<<<grid, block, shmem, stream>>>(args);` becomes
`emu_launch(&k, dim3(grid), dim3(block), args);` (shmem and stream dropped)."""
import glob
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)


def launch(m):
    parts = [p.strip() for p in m.group(2).split(",")]
    return "emu_launch(&%s, dim3(%s), dim3(%s), %s);" % (
        m.group(1), parts[0], parts[1], m.group(3))


for cu in sorted(glob.glob(os.path.join(here, "..", "*.cu"))):
    s = open(cu).read()
    s = re.sub(r"([\w:]+(?:<[^<>]*>)?)\s*<<<(.*?)>>>\s*\((.*?)\);", launch, s,
               flags=re.S)
    name = os.path.basename(cu)[:-3] + ".cc"
    open(os.path.join(out_dir, name), "w").write(s)
