#!/usr/bin/env python3
"""Helpers of bench/gpu-check.sh --profile.

  ncu-profile.py largest SPEC OUT   the spec with each kernel's largest shape
                                    only (by the elements its buffers hold)
  ncu-profile.py names SPEC         the kernels' base names, as an ncu regex
  ncu-profile.py table DIR          a markdown table of DIR/<kernel>.csv, the
                                    ncu --csv output of one --verify run
"""
import csv
import glob
import io
import json
import os
import re
import sys


def kernels(spec):
    return spec.get("kernels", [spec])


def elements(kernel, shape):
    total = 0
    for arg in kernel["args"]:
        if "count" not in arg:
            continue
        expr = re.sub(r"ceil_div\(([^,()]+),([^,()]+)\)", r"(((\1)+(\2)-1)//(\2))",
                      arg["count"])
        expr = re.sub(r"(?<!/)/(?!/)", "//", expr)
        try:
            total += eval(expr, {"__builtins__": {}, "min": min, "max": max},
                          dict(shape))
        except Exception:
            pass
    return total


def largest(spec_path, out_path):
    spec = json.load(open(spec_path))
    for k in kernels(spec):
        k["shapes"] = [max(k["shapes"], key=lambda s: elements(k, s))]
    json.dump(spec, open(out_path, "w"), indent=1)


def names(spec_path):
    spec = json.load(open(spec_path))
    print("|".join(re.escape(k["kernel"].split("<")[0]) for k in kernels(spec)))


# To microseconds, megabytes and instructions (ncu 2025 prints ns/us/ms;
# older ones the long names).
UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "nsecond": 1e-3, "usecond": 1.0,
         "msecond": 1e3, "byte": 1e-6, "Kbyte": 1e-3, "Mbyte": 1.0,
         "Gbyte": 1e3, "inst": 1.0, "Kinst": 1e3, "Minst": 1e6, "Ginst": 1e9}


def table(pdir):
    print("| kernel | launch | time us | DRAM % of peak | DRAM MB | SM % of peak "
          "| warps active % | regs | grid | block | warp inst M | XU warp inst M |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(pdir, "*.csv"))):
        name = os.path.basename(path)[:-4]
        text = open(path, errors="replace").read()
        start = text.find('"ID"')
        if start < 0:
            print(f"| {name} | (no ncu rows: see {name}.ncu.log) |||||||||||")
            continue
        launches = {}
        for r in csv.DictReader(io.StringIO(text[start:])):
            launches.setdefault(int(r["ID"]), {})[r["Metric Name"]] = (
                r["Metric Value"], r["Metric Unit"])

        for i, (_, m) in enumerate(sorted(launches.items())):
            def num(key):
                if key not in m:
                    return None
                value, unit = m[key]
                try:
                    return float(value.replace(",", "")) * UNITS.get(unit, 1.0)
                except ValueError:
                    return None

            def fmt(key):
                x = num(key)
                return "-" if x is None else f"{x:.1f}"

            def millions(key):
                x = num(key)
                return "-" if x is None else f"{x / 1e6:.2f}"

            rd, wr = num("dram__bytes_read.sum"), num("dram__bytes_write.sum")
            mb = f"{rd + wr:.1f}" if rd is not None and wr is not None else "-"
            who = "original" if i < 2 else "candidate"
            raw = lambda k: m.get(k, ("-",))[0]
            print(f"| {name} | {who} run {i % 2} | {fmt('gpu__time_duration.sum')} "
                  f"| {fmt('dram__throughput.avg.pct_of_peak_sustained_elapsed')} | {mb} "
                  f"| {fmt('sm__throughput.avg.pct_of_peak_sustained_elapsed')} "
                  f"| {fmt('sm__warps_active.avg.pct_of_peak_sustained_active')} "
                  f"| {raw('launch__registers_per_thread')} | {raw('launch__grid_size')} "
                  f"| {raw('launch__block_size')} "
                  f"| {millions('smsp__inst_executed.sum')} "
                  f"| {millions('smsp__inst_executed_pipe_xu.sum')} |")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "largest":
        largest(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "names":
        names(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "table":
        table(sys.argv[2])
    else:
        sys.exit(__doc__)
