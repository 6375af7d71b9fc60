"""Applies astra-opt plans before a torch extension is built.

setup.py calls apply_plans() and hands CUDAExtension the rewritten sources it
returns instead of the originals. It needs no torch and no GPU: it runs

    astra-opt --apply-plan <plan> --require-source-match <src> -o <out> ARGS

for each (source, plan) pair, so the extension ships exactly the code whose
speedup and correctness the plan proved. A source edited since its plan was
made fails the build with astra-opt's message. Run it alone to write the
rewritten sources without building:

    python3 astra_plans.py --out-dir build/astra-opt [-- ARGS for astra-opt]
"""
import argparse
import os
import shutil
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))

# (source, plan) pairs of this extension, relative to this directory.
PLANS = [("silu_mul_ext.cu", "plans/silu_mul_ext.plan.json")]


def find_astra_opt():
    """$ASTRA_OPT, else astra-opt on the PATH."""
    exe = os.environ.get("ASTRA_OPT") or shutil.which("astra-opt")
    if not exe:
        sys.exit("astra_plans: astra-opt not found: set ASTRA_OPT or put it "
                 "on the PATH")
    return exe


def torch_args(include_dirs):
    """astra-opt arguments for torch's include directories and Python's (the
    ones CUDAExtension compiles with: torch/extension.h includes Python.h)."""
    dirs = list(include_dirs) + [sysconfig.get_paths()["include"]]
    return ["--extra-arg=-isystem" + d for d in dirs]


def apply_plans(out_dir, extra_args=(), astra_opt=None, plans=PLANS):
    """Writes each source's rewritten version under out_dir; returns their
    paths (in the order of plans), which replace the originals in the
    extension's sources. Rewrites only when the output is older than the
    source, the plan or astra-opt."""
    astra_opt = astra_opt or find_astra_opt()
    os.makedirs(out_dir, exist_ok=True)
    outs = []
    for src, plan in plans:
        src, plan = os.path.join(HERE, src), os.path.join(HERE, plan)
        out = os.path.join(out_dir, os.path.basename(src))
        inputs = [src, plan, astra_opt]
        if not os.path.exists(out) or any(
                os.path.getmtime(i) > os.path.getmtime(out) for i in inputs):
            print("astra-opt: applying %s to %s" % (os.path.relpath(plan, HERE),
                                                    os.path.relpath(src, HERE)))
            cmd = [astra_opt, "--apply-plan", plan, "--require-source-match",
                   src, "-o", out] + list(extra_args)
            if subprocess.run(cmd).returncode != 0:
                sys.exit("astra_plans: %s: the plan was not applied (see "
                         "astra-opt's message above)" % os.path.relpath(src, HERE))
        outs.append(out)
    return outs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("args", nargs="*", help="more astra-opt arguments")
    opts = ap.parse_args()
    for out in apply_plans(opts.out_dir, opts.args):
        print(out)


if __name__ == "__main__":
    main()
