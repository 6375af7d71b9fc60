#!/usr/bin/env bash
# gpu-check.sh: check astra-opt on a GPU machine from an installed tree;
# builds nothing.
#
#   bench/gpu-check.sh [--prefix DIR] [--tests DIR] [--kernels DIR]
#                      [--tools DIR] [--out DIR] [--skip-lit] [--skip-suite]
#                      [--lit "Harness Agent"] [--agent-suite]
#
#  1. runs the GPU lit tests (test/Harness: the adversarial corpus, the
#     control run; test/Agent; the GPU tests of warp-reduce and register-cache
#     in test/Transforms) against the installed astra-opt; --lit takes
#     directories or single test files under the test directory;
#  2. runs the control (original against itself, `astra-opt --verify k.cu`)
#     on every kernel of the suite, all shapes, and keeps each --report;
#  2b. with --agent-suite, runs bench/agent-suite.sh (--agent-rewrite on
#     every kernel, default budgets) into OUT/agent;
#  3. prints a short table last: per kernel, the largest shape's median time,
#     achieved bandwidth and % of the measured copy bandwidth, the control
#     ratio and whether every shape was correct.
#
# --prefix   the installed tree (default: the tree this script is installed in)
# --tests    the lit test directory (default: PREFIX/share/astra-opt/test, else
#            the source checkout's test/ beside this script)
# --kernels  the kernel suite (default: PREFIX/share/astra-opt/kernels)
# --tools    a directory with lit/ (LLVM's lit), FileCheck and not (a GPU
#            machine has no LLVM; default: PREFIX/share/astra-opt/test-tools)
# --out      where logs and reports go (default: ./gpu-check-out)
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=""; tests=""; kernels=""; tools=""; out="$PWD/gpu-check-out"
skip_lit=0; skip_suite=0; agent_suite=0
lit_dirs="Harness Agent Transforms/warp-reduce-gpu.test Transforms/register-cache-gpu.test"
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --tests) tests=$2; shift 2 ;;
    --kernels) kernels=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --skip-lit) skip_lit=1; shift ;;
    --skip-suite) skip_suite=1; shift ;;
    --agent-suite) agent_suite=1; shift ;;
    --lit) lit_dirs=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "gpu-check.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
if [ -z "$prefix" ]; then
  if [ -x "$here/../../../bin/astra-opt" ]; then prefix=$(cd "$here/../../.." && pwd)
  else echo "gpu-check.sh: give --prefix <installed tree>" >&2; exit 1; fi
fi
prefix=$(cd "$prefix" && pwd)
astra="$prefix/bin/astra-opt"
[ -x "$astra" ] || { echo "gpu-check.sh: no $astra" >&2; exit 1; }
[ -n "$kernels" ] || kernels="$prefix/share/astra-opt/kernels"
[ -n "$tools" ] || tools="$prefix/share/astra-opt/test-tools"
if [ -z "$tests" ]; then
  if [ -d "$prefix/share/astra-opt/test" ]; then tests="$prefix/share/astra-opt/test"
  else tests="$here/../test"; fi
fi
mkdir -p "$out"; out=$(cd "$out" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1 | tee "$out/device.txt"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee -a "$out/device.txt"
"$astra" --version | tee -a "$out/device.txt"

lit_rc=0
if [ $skip_lit = 0 ]; then
  echo "== GPU lit tests ($lit_dirs under $tests)"
  tests=$(cd "$tests" && pwd)
  mkdir -p "$out/lit"
  cat > "$out/lit/lit.site.cfg.py" <<EOF
import os
config.astra_src_root = "$(dirname "$tests")"
config.astra_obj_root = "$out/lit"
config.astra_tools_dir = "$prefix/bin"
config.llvm_tools_dir = "$tools"
config.cuda_path = "$cuda"
EOF
  export LD_LIBRARY_PATH="$tools${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  python3 "$tools/lit.py" -sv -j 1 --time-tests \
    --param astra_site_config="$out/lit/lit.site.cfg.py" \
    $(for d in $lit_dirs; do [ -e "$tests/$d" ] && echo "$tests/$d"; done) \
    > "$out/lit.log" 2>&1
  lit_rc=$?
  grep -E "^(PASS|FAIL|UNSUPPORTED|XFAIL|XPASS|UNRESOLVED):" "$out/lit.log" || true
  sed -n '/Slowest Tests/,/^$/p;/^Total Discovered/,$p' "$out/lit.log"
fi

if [ $skip_suite = 0 ]; then
  echo "== control runs over the kernel suite ($kernels)"
  for spec in "$kernels"/*.astra.json; do
    [ -e "$spec" ] || continue
    name=$(basename "$spec" .astra.json)
    cu="$kernels/$name.cu"
    [ -e "$cu" ] || continue
    start=$(date +%s%N)
    "$astra" --verify "$cu" --spec "$spec" --cuda-path="$cuda" \
      --report "$out/$name.json" > "$out/$name.log" 2>&1
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    printf '%-28s rc=%d  %6d ms\n' "$name" $rc $ms
    echo "rc=$rc wall_ms=$ms" >> "$out/$name.log"
  done
fi

if [ $agent_suite = 1 ]; then
  echo "== --agent-rewrite over the kernel suite"
  "$here/agent-suite.sh" --prefix "$prefix" --kernels "$kernels" --out "$out/agent"
fi

echo "== summary"
python3 - "$out" "$kernels" <<'EOF'
import glob, json, os, re, statistics, sys
out, kernels = sys.argv[1], sys.argv[2]
rows, controls, walls = [], [], []
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    name = os.path.basename(path)[:-5]
    try:
        rep = json.load(open(path))
    except Exception:
        continue
    for r in rep.get("kernels", [rep]):
        timed = [s for s in r["shapes"] if s.get("timing")]
        if not timed:
            continue
        big = max(timed, key=lambda s: s["timing"]["bytes"])
        t = big["timing"]
        ctl = [s["timing"]["control"]["median"] for s in timed]
        controls += ctl
        walls.append(r["wall_seconds"])
        ok = all(s["correct"] for s in r["shapes"] if not s.get("dropped"))
        rows.append((r["kernel"], big["shape"], t["original_us"], t["original_gbs"],
                     t["original_pct_copy"], statistics.median(ctl), ok and r["verdict"] != "refused",
                     r["wall_seconds"], r["device"]["copy_gbs"], r["device"]["name"]))
for path in sorted(glob.glob(os.path.join(out, "*.log"))):
    name = os.path.basename(path)[:-4]
    if name == "lit" or os.path.exists(os.path.join(out, name + ".json")):
        continue
    tail = open(path).read().strip().splitlines()
    err = next((l for l in tail if "error:" in l), tail[-1] if tail else "?")
    print(f"FAILED {name}: {err}")
if rows:
    print(f"device: {rows[0][9]}, measured copy bandwidth {rows[0][8]:.0f} GB/s")
    print(f"{'kernel':<30} {'largest shape':<28} {'median us':>10} {'GB/s':>7} {'%copy':>6} {'control':>8} {'correct':>7} {'wall s':>7}")
    for k, shape, us, gbs, pct, ctl, ok, wall, _, _ in rows:
        print(f"{k:<30} {shape[:28]:<28} {us:>10.2f} {gbs:>7.0f} {pct:>6.1f} {ctl:>8.4f} {'yes' if ok else 'NO':>7} {wall:>7.1f}")
    print(f"control over the suite: median {statistics.median(controls):.4f}x over {len(controls)} shapes "
          f"(min {min(controls):.4f}, max {max(controls):.4f}); harness wall per kernel: median {statistics.median(walls):.1f} s")
EOF
exit $lit_rc
