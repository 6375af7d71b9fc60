#!/usr/bin/env python3
# suite-table.py: summarize `astra-opt --agent-rewrite --report` reports as one
# markdown table: per kernel the winning plan, the verified geomean speedup,
# the largest shape's % of copy bandwidth, candidates judged, wall time (from
# runs.txt, `<name> rc=<rc> wall=<ms>e-3` lines, when the directory has one),
# the per-shape speedups and a copy-bandwidth ceiling; then the suite's
# geometric-mean speedup and the ceiling of that geometric mean.
#
#   python3 bench/suite-table.py DIR_OR_REPORT... [--json FILE]
#
# DIR: every <name>.report.json in it (bench/agent-suite.sh's --out directory).
# A report may also be `astra-opt --verify --report`'s (bench/gpu-check.sh
# --replay: a fixed plan, its steps in <name>.steps beside it): its geomean
# counts only when the verdict is faster (else the original is kept: 1x), and
# a <kernel>.<variant> name is listed apart, outside the suite figures.
# --json FILE also writes the rows and suite figures as JSON.  Standard library
# only.  Exit 1 when no report is found or a report is malformed.
import argparse, glob, json, math, os, sys

MEMORY_BOUND_PCT = 5.0  # original below this % of copy at its largest shape


def die(msg):
    sys.stderr.write("suite-table.py: %s\n" % msg)
    sys.exit(1)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def read_walls(d):
    """Last wall seconds per name (and rc) from d/runs.txt, if it exists."""
    walls, p = {}, os.path.join(d, "runs.txt")
    if not os.path.exists(p):
        return walls
    for n, line in enumerate(open(p), 1):
        f = line.split()
        if not f:
            continue
        try:
            rc = f[1].split("=", 1)[1]
            walls[f[0]] = (rc, float(f[2].split("=", 1)[1]))
        except (IndexError, ValueError):
            sys.stderr.write("suite-table.py: %s:%d: ignoring %r\n" % (p, n, line.strip()))
    return walls


def timed(shapes):
    return [s for s in shapes if s.get("timing") and not s.get("generated")]


def kernel_row(name, rep, K, wall):
    judged = [c for c in K["candidates"] if c["status"] == "evaluated"]
    w = K.get("winner")
    if w:
        shapes = timed(w["final_check"]["shapes"])
        plan, sp = list(w["plan"]), float(w["geomean_speedup"])
        pct = shapes[-1]["timing"]["candidate_pct_copy"] if shapes else None
        per = [s["timing"]["speedup"]["median"] for s in shapes]
    else:  # the original: any evaluated candidate's result has its times
        shapes = next((timed(c["result"]["shapes"]) for c in judged
                       if c.get("result") and timed(c["result"]["shapes"])), [])
        plan, sp, pct, per = ["(original: " + K.get("summary", "no winner") + ")"], 1.0, None, []
    return {"kernel": K["kernel"], "report": name, "plan": plan, "speedup": sp,
            "pct": pct, "per_shape": per, "judged": len(judged), "wall": wall,
            "ceiling": None, "memory_bound": None,
            "_shapes": shapes, "_copy_gbs": copy_gbs(rep, K)}


def read_steps(path):
    """The steps of a .steps file (one per line, `#` comments), or None."""
    try:
        lines = [l.split("#", 1)[0].strip() for l in open(path)]
    except OSError:
        return None
    return [l for l in lines if l]


def verify_row(name, rep, f, wall):
    """A row from a --verify report: the plan replayed, kept only if faster."""
    shapes = timed(rep["shapes"])
    steps = read_steps(f[:-len(".report.json")] + ".steps") if f.endswith(".report.json") else None
    measured = float(rep["geomean_speedup"])
    faster = rep["verdict"] == "faster"
    return {"kernel": rep["kernel"], "report": name,
            "plan": (steps or [rep.get("candidate", "?")]) + ["(%s %.3fx)" % (rep["verdict"], measured)],
            "speedup": measured if faster else 1.0,
            "pct": shapes[-1]["timing"]["candidate_pct_copy"] if shapes else None,
            "per_shape": [s["timing"]["speedup"]["median"] for s in shapes],
            "judged": 1, "wall": wall, "ceiling": None, "memory_bound": None,
            "variant": "." in name, "verdict": rep["verdict"],
            "_shapes": shapes, "_copy_gbs": float(rep["device"]["copy_gbs"])}


def copy_gbs(rep, K):
    """The report's copy bandwidth; a report that kept nothing has no device,
    so then that of a judged candidate's result (None: no ceiling)."""
    if rep.get("device"):
        return float(rep["device"]["copy_gbs"])
    for c in K["candidates"]:
        d = (c.get("result") or {}).get("device")
        if d and d.get("copy_gbs"):
            return float(d["copy_gbs"])
    return None


def launch_times(K):
    for c in K["candidates"]:
        if c["status"] == "evaluated" and c.get("result"):
            for s in timed(c["result"]["shapes"]):
                yield min(s["timing"]["original_us"], s["timing"]["candidate_us"])


def main():
    ap = argparse.ArgumentParser(description="markdown table of agent-rewrite reports")
    ap.add_argument("paths", nargs="+", help="directories of *.report.json, or report files")
    ap.add_argument("--json", metavar="FILE", help="also write rows and suite figures as JSON")
    a = ap.parse_args()

    files, walls, dirs = [], {}, set()  # walls: directory -> {name: (rc, seconds)}
    for p in a.paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "*.report.json")))
            dirs.add(os.path.abspath(p))
        elif os.path.isfile(p):
            files.append(p)
        else:
            die("%s: no such file or directory" % p)
    if not files:
        die("no *.report.json found in %s" % " ".join(a.paths))

    rows, errors, tl, seen = [], [], [], set()
    for f in files:
        d = os.path.dirname(os.path.abspath(f))
        if d not in walls:
            walls[d] = read_walls(d)
        name = os.path.basename(f)[:-len(".report.json")] if f.endswith(".report.json") \
            else os.path.basename(f)
        seen.add((d, name))
        wall = walls[d].get(name, (None, None))[1]
        try:
            rep = json.load(open(f))
            if "kernels" not in rep and "shapes" in rep:  # a --verify report
                rows.append(verify_row(name, rep, f, wall))
                tl += [min(s["timing"]["original_us"], s["timing"]["candidate_us"])
                       for s in rows[-1]["_shapes"]]
                continue
            for K in rep["kernels"]:
                rows.append(kernel_row(name, rep, K, wall))
                tl += list(launch_times(K))
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
            errors.append("%s: malformed report (%s: %s)" % (f, type(e).__name__, e))
    if errors:
        die("\nsuite-table.py: ".join(errors))
    # a directory's runs.txt names without a report (the run failed): the original
    for d in sorted(dirs):
        if d not in walls:
            walls[d] = read_walls(d)
        for name, (rc, wall) in sorted(walls[d].items()):
            if (d, name) not in seen:
                rows.append({"kernel": name, "report": name, "plan": ["(no report: rc=%s)" % rc],
                             "speedup": 1.0, "pct": None, "per_shape": [], "judged": 0,
                             "wall": wall, "ceiling": None, "memory_bound": None,
                             "variant": "." in name, "_shapes": [], "_copy_gbs": None})

    t_launch = min(tl) if tl else None
    for r in rows:
        sh = r.pop("_shapes")
        copy = r.pop("_copy_gbs")
        if not sh or t_launch is None or not copy:
            continue
        r["memory_bound"] = sh[-1]["timing"]["original_pct_copy"] >= MEMORY_BOUND_PCT
        if r["memory_bound"]:  # GB/s = 1e3 bytes/us
            r["ceiling"] = geomean([s["timing"]["original_us"] /
                                    max(s["timing"]["bytes"] / (copy * 1e3), t_launch) for s in sh])

    variants = [r for r in rows if r.get("variant")]
    rows = [r for r in rows if not r.get("variant")]
    print("| kernel | winning plan | geomean speedup | largest shape % of copy | judged "
          "| wall s | per shape | ceiling |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows + variants:
        if variants and r is variants[0]:
            print("| **variants** (%s.steps: outside the suite figures) | | | | | | | |"
                  % "*.<variant>")
        print("| %s | %s | %.3fx | %s | %d | %s | %s | %s |" % (
            r["kernel"] + (" (%s)" % r["report"] if r.get("variant") and r["report"] != r["kernel"]
                           else ""), " + ".join(r["plan"]), r["speedup"],
            "" if r["pct"] is None else "%.1f" % r["pct"], r["judged"],
            "-" if r["wall"] is None else "%.0f" % r["wall"],
            " ".join("%.2f" % x for x in r["per_shape"]) or "-",
            "-" if r["ceiling"] is None else "%.2fx" % r["ceiling"]))
    g = geomean([r["speedup"] for r in rows])
    mb = [r for r in rows if r["ceiling"] is not None]
    cg, ng = geomean([r["ceiling"] for r in mb]), geomean([r["speedup"] for r in mb])
    print("\nsuite geometric-mean speedup: %.3fx over %d kernels" % (g, len(rows)))
    if mb:
        print("\nceiling of the suite's geometric mean: %.3fx over %d memory-bound kernels "
              "(their geometric mean now: %.3fx)" % (cg, len(mb), ng))
    not_mb = [r["kernel"] for r in rows if r["memory_bound"] is False]
    print("\n- per shape: the final check's speedup (median) at each of the spec's shapes, in "
          "spec order (generated shapes left out); the geomean speedup is their geometric mean.")
    print("- ceiling: per shape, original time / max(bytes / copy bandwidth, t_launch), "
          "geometric mean over the same shapes. t_launch = %s, the fastest launch "
          "(original or candidate) the harness timed in these reports; copy bandwidth is each "
          "report's device.copy_gbs. An upper bound, not a prediction: the spec's bytes are a "
          "lower bound on the traffic (gather kernels move about 1.5x more) and small launches "
          "do not reach copy bandwidth." % ("-" if t_launch is None else "%.3f us" % t_launch))
    if not_mb:
        print("- ceiling \"-\": not memory-bound (the original runs below %g%% of copy bandwidth "
              "at its largest shape), so copy bandwidth bounds nothing; left out of the suite "
              "ceiling, kept in the suite speedup: %s." % (MEMORY_BOUND_PCT, ", ".join(not_mb)))

    if a.json:
        suite = {"geomean_speedup": g, "kernels": len(rows), "t_launch_us": t_launch,
                 "ceiling_geomean": cg, "ceiling_kernels": len(mb),
                 "memory_bound_geomean_speedup": ng}
        try:
            with open(a.json, "w") as fh:
                json.dump({"rows": rows + variants, "suite": suite}, fh, indent=1)
                fh.write("\n")
        except OSError as e:
            die("%s: %s" % (a.json, e))


if __name__ == "__main__":
    main()
