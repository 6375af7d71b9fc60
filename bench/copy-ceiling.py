#!/usr/bin/env python3
# copy-ceiling.py: the most a rewrite could gain on each shape of the suite
# when it still moves the spec's bytes: the original's time on the shape over
# the time a copy of those bytes takes under the same timing protocol
# (bench/copy-ceiling.cu), against the ceiling bench/suite-table.py gives
# (the bytes at the bandwidth of a 1 GiB copy, or the fastest launch).
#
#   python3 bench/copy-ceiling.py bytes REPORT...          # the byte counts
#   python3 bench/copy-ceiling.py table REPORT... --copy FILE [--achieved FILE]
#                                 [--json FILE]
#
# REPORT: `astra-opt --verify --report` files or directories of them (the
# control runs of bench/gpu-check.sh: OUT/<kernel>.json). `bytes` prints the
# shapes' distinct byte counts, one per line, for copy-ceiling.cu; FILE of
# --copy is its output. --achieved FILE: JSON {"kernel": [speedup per timed
# shape, in the spec's order]}, e.g. a kept plan's per-shape speedups, shown
# against the ceilings. A kernel counts as memory-bound where the original
# runs at 5% of the copy bandwidth or more at its largest shape (as in
# suite-table.py). Standard library only; exit 1 on a malformed input.
import argparse, glob, json, math, os, sys

MEMORY_BOUND_PCT = 5.0


def die(msg):
    sys.stderr.write("copy-ceiling.py: %s\n" % msg)
    sys.exit(1)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def load_reports(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(f for f in glob.glob(os.path.join(p, "*.json"))
                            if not f.endswith((".report.json", ".plan.json")))
        elif os.path.isfile(p):
            files.append(p)
        else:
            die("%s: no such file or directory" % p)
    kernels = []
    for f in files:
        try:
            r = json.load(open(f))
        except (OSError, ValueError) as e:
            die("%s: %s" % (f, e))
        if not isinstance(r, dict) or "shapes" not in r or "kernel" not in r:
            continue  # not a --verify report
        try:
            shapes = [{"shape": s["shape"], "bytes": float(s["timing"]["bytes"]),
                       "orig_us": float(s["timing"]["original_us"]),
                       "orig_pct": float(s["timing"]["original_pct_copy"])}
                      for s in r["shapes"] if s.get("timing") and not s.get("generated")]
            copy = float(r["device"]["copy_gbs"])
        except (KeyError, TypeError, ValueError) as e:
            die("%s: malformed report (%s: %s)" % (f, type(e).__name__, e))
        if shapes:
            kernels.append({"kernel": r["kernel"], "file": f, "shapes": shapes,
                            "copy_gbs": copy})
    if not kernels:
        die("no --verify report with timed shapes in %s" % " ".join(paths))
    return kernels


def read_copy(path):
    t = {}
    for n, line in enumerate(open(path), 1):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        try:
            t[round(float(f[0]))] = float(f[1])
        except (IndexError, ValueError):
            die("%s:%d: expected 'bytes us ...', got %r" % (path, n, line.strip()))
    return t


def main():
    ap = argparse.ArgumentParser(description="same-bytes copy ceilings of the suite")
    ap.add_argument("mode", choices=["bytes", "table"])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--copy", help="copy-ceiling.cu's output (table)")
    ap.add_argument("--achieved", help="JSON {kernel: [per-shape speedups]}")
    ap.add_argument("--json", help="also write the rows as JSON")
    a = ap.parse_args()
    kernels = load_reports(a.reports)
    if a.mode == "bytes":
        for b in sorted({round(s["bytes"]) for k in kernels for s in k["shapes"]}):
            print(b)
        return
    if not a.copy:
        die("table needs --copy FILE")
    copy = read_copy(a.copy)
    achieved = {}
    if a.achieved:
        try:
            achieved = json.load(open(a.achieved))
        except (OSError, ValueError) as e:
            die("%s: %s" % (a.achieved, e))
    t_launch = min(copy.values()) if copy else None
    rows, out = [], []
    print("| kernel | shape | bytes | original us | same-bytes copy us | ceiling | "
          "1 GiB-copy ceiling | achieved |")
    print("|---|---|---|---|---|---|---|---|")
    for k in sorted(kernels, key=lambda k: k["kernel"]):
        ach = achieved.get(k["kernel"]) or achieved.get(k["kernel"].split("<")[0])
        if ach is not None and len(ach) != len(k["shapes"]):
            die("--achieved: %s has %d speedups for %d shapes" %
                (k["kernel"], len(ach), len(k["shapes"])))
        ceil, old = [], []
        for i, s in enumerate(k["shapes"]):
            b = round(s["bytes"])
            if b not in copy:
                die("no copy time for %d bytes (%s): run copy-ceiling on `bytes`'s list"
                    % (b, k["kernel"]))
            c = s["orig_us"] / copy[b]
            o = s["orig_us"] / max(s["bytes"] / (k["copy_gbs"] * 1e3), t_launch)
            ceil.append(c)
            old.append(o)
            print("| %s | %s | %.3g | %.2f | %.2f | %.2fx | %.2fx | %s |" % (
                k["kernel"], s["shape"], s["bytes"], s["orig_us"], copy[b], c, o,
                "-" if ach is None else "%.2fx" % ach[i]))
        mb = k["shapes"][-1]["orig_pct"] >= MEMORY_BOUND_PCT
        rows.append({"kernel": k["kernel"], "memory_bound": mb, "ceiling": geomean(ceil),
                     "old_ceiling": geomean(old), "achieved": geomean(ach) if ach else None,
                     "per_shape": ceil})
    print("\n| kernel | memory-bound | same-bytes copy ceiling | 1 GiB-copy ceiling | achieved |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %.3fx | %.3fx | %s |" % (
            r["kernel"], "yes" if r["memory_bound"] else "no", r["ceiling"], r["old_ceiling"],
            "-" if r["achieved"] is None else "%.3fx" % r["achieved"]))
    mb = [r for r in rows if r["memory_bound"]]
    suite = {"kernels": len(mb), "ceiling": geomean([r["ceiling"] for r in mb]),
             "old_ceiling": geomean([r["old_ceiling"] for r in mb]),
             "t_launch_us": t_launch}
    if mb and all(r["achieved"] for r in mb):
        suite["achieved"] = geomean([r["achieved"] for r in mb])
    print("\nover the %d memory-bound kernels: same-bytes copy ceiling %.3fx, "
          "1 GiB-copy ceiling %.3fx%s; fastest copy launch %.2f us" % (
              suite["kernels"], suite["ceiling"], suite["old_ceiling"],
              ", achieved %.3fx" % suite["achieved"] if "achieved" in suite else "",
              t_launch))
    if a.json:
        json.dump({"rows": rows, "suite": suite}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
