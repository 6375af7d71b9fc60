#!/usr/bin/env bash
# agent-suite.sh: run `astra-opt --agent-rewrite` on every kernel of the
# suite (default budgets unless given) on a GPU machine, keep each report
# and plan, and print one table: per kernel the winning plan, the verified
# geomean speedup, the largest shape's % of copy bandwidth, candidates
# judged, wall time; then the suite's geometric-mean speedup.
#
#   bench/agent-suite.sh [--prefix DIR] [--kernels DIR] [--out DIR]
#                        [--only k1,k2] [-- extra astra-opt arguments]
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=""; kernels=""; out="$PWD/agent-suite-out"; only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --kernels) kernels=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "agent-suite.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
if [ -z "$prefix" ]; then
  if [ -x "$here/../../../bin/astra-opt" ]; then prefix=$(cd "$here/../../.." && pwd)
  elif [ -x "$here/../build/bin/astra-opt" ]; then prefix=$(cd "$here/../build" && pwd)
  else echo "agent-suite.sh: give --prefix <installed tree>" >&2; exit 1; fi
fi
astra="$prefix/bin/astra-opt"
[ -n "$kernels" ] || kernels="$prefix/share/astra-opt/kernels"
[ -d "$kernels" ] || kernels="$here/../kernels"
mkdir -p "$out"; out=$(cd "$out" && pwd)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$out/device.txt"
for cu in "$kernels"/*.cu; do
  k=$(basename "$cu" .cu)
  [ -f "$kernels/$k.astra.json" ] || continue
  if [ -n "$only" ] && ! echo ",$only," | grep -q ",$k,"; then continue; fi
  echo "== $k"
  start=$(date +%s%N)
  "$astra" --agent-rewrite "$cu" -o "$out/$k.cu" --report "$out/$k.report.json" \
    --plan "$out/$k.plan.json" "$@" 2> "$out/$k.log"
  rc=$?
  end=$(date +%s%N)
  echo "$k rc=$rc wall=$(( (end - start) / 1000000 ))e-3" >> "$out/runs.txt"
  tail -3 "$out/$k.log"
done
python3 - "$out" <<'PY'
import json, math, os, sys
out = sys.argv[1]
walls = {}
for line in open(os.path.join(out, "runs.txt")):
    k, rc, wall = line.split()
    walls[k] = (rc, float(wall.split("=")[1]))
rows, logs = [], []
for k in sorted(walls):
    p = os.path.join(out, k + ".report.json")
    if not os.path.exists(p):
        rows.append((k, "(no report: %s)" % walls[k][0], 1.0, "", 0, walls[k][1])); continue
    r = json.load(open(p))
    for K in r["kernels"]:
        judged = sum(1 for c in K["candidates"] if c["status"] == "evaluated")
        w = K.get("winner")
        if w:
            fc = w["final_check"]
            timed = [s for s in fc["shapes"] if s.get("timing") and not s.get("generated")]
            pct = timed[-1]["timing"]["candidate_pct_copy"] if timed else 0
            rows.append((K["kernel"], " + ".join(w["plan"]), w["geomean_speedup"], "%.1f" % pct, judged, walls[k][1]))
        else:
            rows.append((K["kernel"], "(original: " + K["summary"] + ")", 1.0, "", judged, walls[k][1]))
print("| kernel | winning plan | geomean speedup | largest shape % of copy | judged | wall s |")
print("|---|---|---|---|---|---|")
for k, plan, sp, pct, judged, wall in rows:
    print("| %s | %s | %.3fx | %s | %d | %.0f |" % (k, plan, sp, pct, judged, wall))
g = math.exp(sum(math.log(r[2]) for r in rows) / max(1, len(rows)))
print("\nsuite geometric-mean speedup: %.3fx over %d kernels" % (g, len(rows)))
PY
