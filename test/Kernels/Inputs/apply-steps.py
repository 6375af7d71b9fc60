#!/usr/bin/env python3
# apply-steps.py ASTRA_OPT STEPS_DIR KERNELS_DIR OUT_DIR: apply every
# <kernel>[.<variant>].steps file (bench/plans) to its kernel on the CPU with
# `astra-opt --apply=... -o`, and print one line per file: "ok NAME" or
# "FAIL NAME: <astra-opt's first error line>", then "N plans, F failed".
# Exit 1 when any fails or there is none.
import glob, os, subprocess, sys

astra, steps_dir, kernels, out = sys.argv[1:5]
failed = 0
files = sorted(glob.glob(os.path.join(steps_dir, "*.steps")))
for f in files:
    name = os.path.basename(f)[:-len(".steps")]
    kernel = name.split(".", 1)[0]
    steps = [l.split("#", 1)[0].strip() for l in open(f)]
    args = ["--apply=" + s for s in steps if s]
    p = subprocess.run([astra, os.path.join(kernels, kernel + ".cu")] + args +
                       ["-o", os.path.join(out, name + ".cu")],
                       capture_output=True, text=True)
    if p.returncode == 0 and args:
        print("ok " + name)
    else:
        failed += 1
        err = next((l for l in p.stderr.splitlines() if "error" in l), p.stderr.strip()[:200])
        print("FAIL %s: %s" % (name, err or "no steps"))
print("%d plans, %d failed" % (len(files), failed))
sys.exit(1 if failed or not files else 0)
