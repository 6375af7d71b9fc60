#!/usr/bin/env python3
"""The table of flashinfer-check.sh: one row per run (runs.tsv) with the
verdict and geometric-mean speedup from its --report, or why it has none.

    flashinfer-table.py OUT
"""
import csv
import json
import os
import sys


def first_error(log):
    try:
        lines = open(log).read().splitlines()
    except OSError:
        return "no log"
    err = [l for l in lines if "error:" in l]
    return (err[0] if err else (lines[-1] if lines else "empty log"))[:160]


def main():
    out = sys.argv[1]
    rows = list(csv.DictReader(open(os.path.join(out, "runs.tsv")), delimiter="\t"))
    print("| kernel | plan | backend | verdict | speedup (geomean) | shapes faster/slower | note |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        path = os.path.join(out, r["report"])
        note, verdict, speed, shapes = "", "-", "-", "-"
        try:
            rep = json.load(open(path))
            k = rep.get("kernels", [rep])[0]
            verdict = k["verdict"]
            speed = f"{k['geomean_speedup']:.3f}x" if k.get("geomean_speedup") else "-"
            shapes = f"{k.get('faster_shapes', 0)}/{k.get('slower_shapes', 0)}"
            if verdict == "refused":
                note = f"{k.get('reason', '')}: {k.get('detail', '')}"[:160]
        except (OSError, ValueError, KeyError, IndexError):
            rc = r["rc"]
            verdict = "no GPU" if rc == "2" else f"error (rc={rc})"
            note = first_error(os.path.join(out, r["report"][:-5] + ".log"))
        note = note.replace("|", "\\|")
        print(f"| {r['kernel']} | {r['plan']} | {r['backend']} | {verdict} | {speed} | {shapes} | {note} |")


if __name__ == "__main__":
    main()
