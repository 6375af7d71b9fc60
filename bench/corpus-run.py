#!/usr/bin/env python3
"""Runs astra-opt over a directory of real-world .cu files and prints a markdown
table, one row per file (issue 10, item 5; docs/benchmarks.md, section 7).

Fetches nothing: the corpus is a directory given on the command line (third-party
files are never committed). Per file:
  * --print-kernel-model           -> kernels found
  * --list-rewrites --json         -> rewrites offered (rewrites with an applicable site)
  * --list-options --json          -> the first option of each offered rewrite is applied
                                      (--apply=... -o out.cu), then --emit-ptx of out.cu
                                      -> rewrites whose output compiles
  * --emit-ptx of the original     -> PTX of the original (yes/no)
Each command runs under a timeout; a failure is reported with its first error line.

When astra-opt cannot emit PTX for an original, nvcc (if found) compiles it with the
same include flags, so the table tells a tool failure (nvcc accepts the file) from an
input or environment failure (nvcc rejects it too).

Torch's include directories (libtorch's C++ API and Python's) are passed only to files
that include <torch/...>, <ATen/...> or <c10/...> themselves: astra-opt adds the defines
of a torch extension build (__CUDA_NO_BFLOAT16_CONVERSIONS__, ...) whenever an include
directory holds torch/all.h, which would break plain CUDA files that convert bf16/half.

Debian's libtorch-dev is built without CUDA and lacks the generated header
c10/cuda/impl/cuda_cmake_macros.h that <c10/cuda/*.h> include; when it is missing, an
empty one is written to a temporary directory on the include path (what a CUDA build of
torch generates when it defines no macros there).

Usage: bench/corpus-run.py PATH... [--astra-opt PATH] [--timeout S] [--no-torch-headers]
                           [--json OUT.json] [--extra ARG]...
       bench/corpus-run.py --from-json A.json [B.json...]   (table of earlier runs)
PATH: .cu files, or directories searched recursively for .cu files.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

TORCH_DIRS = ["/usr/include/torch/csrc/api/include"]


def first_error(text):
    """The first line that reads like a diagnostic error, else the first line."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if "error:" in l or "fatal" in l.lower():
            return l
    return lines[0] if lines else "(no output)"


def short(msg, n=160):
    msg = msg.replace("|", "\\|")
    return msg if len(msg) <= n else msg[:n - 3] + "..."


class Runner:
    def __init__(self, astra, timeout, common, nvcc=None, nvcc_flags=(),
                 torch_flags=()):
        self.astra, self.timeout, self.common = astra, timeout, common
        self.torch_flags = list(torch_flags)
        self.nvcc, self.nvcc_flags = nvcc, list(nvcc_flags)

    def nvcc_check(self, path, extra, tmp):
        """nvcc -ptx of the original with the same include flags: 'ok', or
        'fails: <first error>', or None without nvcc."""
        if not self.nvcc:
            return None
        flags = []
        for a in self.common + extra:
            if not a.startswith("--extra-arg="):
                continue
            a = a[len("--extra-arg="):]
            # nvcc takes -isystem's directory as a separate argument
            flags += ["-isystem", a[len("-isystem"):]] if (
                a.startswith("-isystem") and len(a) > len("-isystem")) else [a]
        cmd = [self.nvcc, "-ptx", "-std=c++17", "-arch=sm_90a",
               "--expt-relaxed-constexpr", path, "-o",
               os.path.join(tmp, "nvcc.ptx")] + self.nvcc_flags + flags
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=self.timeout, errors="replace")
        except subprocess.TimeoutExpired:
            return "timeout"
        return "ok" if p.returncode == 0 else "fails: " + first_error(p.stderr + p.stdout)

    def run(self, args):
        cmd = [self.astra] + args + self.common
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=self.timeout, errors="replace")
            return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
        except subprocess.TimeoutExpired:
            return -1, "", "timeout after %d s" % self.timeout, \
                time.monotonic() - t0


TORCH_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](torch|ATen|c10)/', re.M)


def measure(r, path, tmp, root):
    row = {"file": os.path.relpath(path, root) if root else os.path.basename(path),
           "failures": []}
    t0 = time.monotonic()
    extra = ["--extra-arg=-I" + os.path.dirname(os.path.abspath(path))]
    with open(path, errors="replace") as fh:
        row["torch"] = bool(TORCH_INCLUDE.search(fh.read()))
    if row["torch"]:
        extra += r.torch_flags

    rc, out, err, _ = r.run(["--print-kernel-model", path] + extra)
    row["model"] = rc == 0
    row["kernels"] = None
    if rc == 0:
        try:
            row["kernels"] = len(json.loads(out).get("kernels", []))
        except ValueError as e:
            row["model"] = False
            row["failures"].append("kernel model: bad JSON (%s)" % e)
    else:
        row["failures"].append("kernel model: " + first_error(err or out))

    rc, out, err, _ = r.run(["--emit-ptx", path, "-o",
                             os.path.join(tmp, "orig.ptx")] + extra)
    row["ptx"] = rc == 0
    row["nvcc"] = None
    if rc != 0:
        row["failures"].append("PTX: " + first_error(err or out))
        row["nvcc"] = r.nvcc_check(path, extra, tmp)

    row["offered"], row["sites"], row["compiles"], row["applied"] = [], 0, [], []
    rc, out, err, _ = r.run(["--list-rewrites", "--json", path] + extra)
    if rc == 0:
        try:
            sites = [s for s in json.loads(out) if s.get("applies")]
        except ValueError as e:
            sites = []
            row["failures"].append("list-rewrites: bad JSON (%s)" % e)
        row["sites"] = len(sites)
        row["offered"] = sorted({s["rewrite"] for s in sites})
    else:
        row["failures"].append("list-rewrites: " + first_error(err or out))

    options = {}
    if row["offered"]:
        rc, out, err, _ = r.run(["--list-options", "--json", path] + extra)
        if rc == 0:
            try:
                for o in json.loads(out):
                    options.setdefault(o["rewrite"], o["apply"])
            except ValueError as e:
                row["failures"].append("list-options: bad JSON (%s)" % e)
        else:
            row["failures"].append("list-options: " + first_error(err or out))
    for name in row["offered"]:
        spec = options.get(name, name)
        row["applied"].append(spec)
        outcu = os.path.join(tmp, "out_%s.cu" % name)
        rc, out, err, _ = r.run(["--apply=" + spec, path, "-o", outcu] + extra)
        if rc != 0:
            row["failures"].append("apply %s: %s" % (spec, first_error(err or out)))
            continue
        rc, out, err, _ = r.run(["--emit-ptx", outcu, "-o",
                                 os.path.join(tmp, "out.ptx")] + extra)
        if rc != 0:
            row["failures"].append("PTX after %s: %s" % (spec, first_error(err or out)))
            continue
        row["compiles"].append(name)
    row["time"] = time.monotonic() - t0
    return row


def table(rows):
    out = ["| file | kernels | rewrites offered (sites) | output compiles | PTX of original | time (s) | failures (first error line) |",
           "|---|---|---|---|---|---|---|"]
    for w in rows:
        k = "no model" if not w["model"] else str(w["kernels"])
        off = "%d (%d): %s" % (len(w["offered"]), w["sites"], ", ".join(w["offered"])) \
            if w["offered"] else "0"
        comp = "%d/%d" % (len(w["compiles"]), len(w["offered"]))
        fails = list(w["failures"])
        if w.get("nvcc"):
            fails.append("nvcc -ptx of the original: " + w["nvcc"])
        fail = "<br>".join(short(f) for f in fails) or "-"
        out.append("| %s | %s | %s | %s | %s | %.1f | %s |" % (
            w["file"], k, off, comp, "yes" if w["ptx"] else "**no**", w["time"], fail))
    n = len(rows)
    both = sum(1 for w in rows if w["model"] and w["ptx"])
    model = sum(1 for w in rows if w["model"])
    ptx = sum(1 for w in rows if w["ptx"])
    offered = sum(len(w["offered"]) for w in rows)
    comp = sum(len(w["compiles"]) for w in rows)
    out.append("")
    out.append("Files: %d; kernel model: %d; PTX of the original: %d; both: %d (%.0f%%); "
               "rewrites offered: %d, whose output compiles: %d; total time %.0f s."
               % (n, model, ptx, both, 100.0 * both / max(n, 1), offered, comp,
                  sum(w["time"] for w in rows)))
    return "\n".join(out)


def cu_files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                out += [os.path.join(root, n) for n in names if n.endswith(".cu")]
        elif p.endswith(".cu"):
            out.append(p)
    return sorted(out)


def torch_cuda_shim(tmp):
    """An empty c10/cuda/impl/cuda_cmake_macros.h when the installed torch
    headers lack it (CPU-only libtorch); returns its include dir or None."""
    if not os.path.isdir("/usr/include/c10/cuda") or os.path.exists(
            "/usr/include/c10/cuda/impl/cuda_cmake_macros.h"):
        return None
    d = os.path.join(tmp, "shim")
    os.makedirs(os.path.join(d, "c10/cuda/impl"), exist_ok=True)
    with open(os.path.join(d, "c10/cuda/impl/cuda_cmake_macros.h"), "w") as fh:
        fh.write("#pragma once\n")
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--astra-opt", default=os.environ.get("ASTRA_OPT", "astra-opt"))
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--no-torch-headers", action="store_true",
                    help="do not add libtorch's and Python's include directories")
    ap.add_argument("--no-nvcc", action="store_true",
                    help="do not cross-check failing originals with nvcc")
    ap.add_argument("--json", help="also write the rows as JSON here")
    ap.add_argument("--from-json", nargs="+", metavar="JSON",
                    help="print the table of earlier runs' JSON files (a file's row in a "
                    "later JSON replaces its row in an earlier one)")
    ap.add_argument("--extra", action="append", default=[],
                    help="another astra-opt argument (repeatable)")
    a = ap.parse_args()

    if a.from_json:
        rows = {}
        for j in a.from_json:  # a later run's row replaces an earlier one's
            with open(j) as fh:
                rows.update((w["file"], w) for w in json.load(fh))
        print(table(sorted(rows.values(), key=lambda w: w["file"])))
        return
    files = cu_files(a.paths)
    if not files:
        sys.exit("corpus-run: no .cu files in " + " ".join(a.paths))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        common = list(a.extra)
        torch_flags = []
        if not a.no_torch_headers:
            dirs = [d for d in TORCH_DIRS + [sysconfig.get_paths()["include"]]
                    if os.path.isdir(d)]
            shim = torch_cuda_shim(tmp)
            dirs += [shim] if shim else []
            torch_flags = ["--extra-arg=-isystem" + d for d in dirs]
        nvcc = None if a.no_nvcc else shutil.which("nvcc") or (
            "/usr/local/cuda/bin/nvcc"
            if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
        r = Runner(a.astra_opt, a.timeout, common, nvcc, torch_flags=torch_flags)
        root = os.path.commonpath([os.path.abspath(p) for p in a.paths])
        root = root if os.path.isdir(root) else os.path.dirname(root)
        for f in files:
            rows.append(measure(r, f, tmp, root))
            print("%-40s %.0fs %s" % (os.path.basename(f), rows[-1]["time"],
                                      "ok" if not rows[-1]["failures"] else
                                      rows[-1]["failures"][0][:100]),
                  file=sys.stderr, flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    print(table(rows))


if __name__ == "__main__":
    main()
