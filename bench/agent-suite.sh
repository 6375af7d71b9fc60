#!/usr/bin/env bash
# agent-suite.sh: run `astra-opt --agent-rewrite` on every kernel of the
# suite (default budgets unless given) on a GPU machine, keep each report
# and plan, and print one table (bench/suite-table.py): per kernel the
# winning plan, the verified geomean speedup, the largest shape's % of copy
# bandwidth, candidates judged, wall time, per-shape speedups and a ceiling
# from the copy bandwidth; then the suite's geometric-mean speedup and its
# ceiling.
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
python3 "$here/suite-table.py" "$out"
