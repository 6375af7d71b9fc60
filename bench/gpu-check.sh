#!/usr/bin/env bash
# gpu-check.sh: check astra-opt on a GPU machine from an installed tree;
# builds nothing.
#
#   bench/gpu-check.sh [--prefix DIR] [--tests DIR] [--kernels DIR]
#                      [--tools DIR] [--out DIR] [--skip-lit] [--skip-suite]
#                      [--lit "Harness Agent Build"] [--agent-suite]
#                      [--backends [--plans DIR]] [--profile [--plans DIR]]
#                      [--ceiling [--achieved FILE]]
#                      [--replay [--steps DIR] [--candidates DIR]]
#                      [--flashinfer DIR [--flashinfer-options N-M]]
#                      [--experiment FILE.cu]...
#
#  1. runs the GPU lit tests (test/Harness: the adversarial corpus, the
#     control run, both backends; test/Agent; test/Build: examples/vecops
#     built with the installed CMake package and run; the GPU tests of
#     warp-reduce, register-cache and the manual unroll of vectorized loops
#     in test/Transforms) against the
#     installed astra-opt; --lit takes directories or single test files under
#     the test directory;
#  2. runs the control (original against itself, `astra-opt --verify k.cu`)
#     on every kernel of the suite, all shapes, and keeps each --report;
#  2b. with --agent-suite, runs bench/agent-suite.sh (--agent-rewrite on
#     every kernel, default budgets) into OUT/agent;
#  2c. with --backends, per kernel of the suite and for each backend (clang,
#     nvcc): the control run, and the best plan (PLANS/<kernel>.plan.json,
#     e.g. from --agent-suite) replayed and verified against the original;
#     keeps the reports, each side's PTX and (with ptxas and cuobjdump) SASS
#     under OUT/backends, and prints a table of where the backends differ;
#  2d. with --profile, per kernel of the suite at its largest shape: Nsight
#     Compute metrics (bench/ncu-profile.py) of the original and of the best
#     plan (PLANS/<kernel>.plan.json; else the original twice): time, DRAM
#     throughput as % of peak, DRAM bytes, SM throughput, warps active,
#     registers, grid, block: the evidence of what limits a kernel that
#     stays below the copy bandwidth; a kernel without a plan file takes
#     its .steps file of --steps (default bench/plans) if there is one.
#     Keeps OUT/profile/<kernel>.csv;
#  2f. with --ceiling (needs the control runs of step 2 and nvcc): the
#     same-bytes copy ceiling of every shape (bench/copy-ceiling.cu, .py):
#     the original's time over that of a copy of the spec's bytes timed as
#     the harness times kernels; per kernel and over the memory-bound ones,
#     beside the ceiling from the 1 GiB copy bandwidth; --achieved FILE
#     (JSON {kernel: [per-shape speedups]}) adds what plans reached. Keeps
#     OUT/ceiling/{bytes.txt,copy.txt,table.md,ceiling.json};
#  2e. with --flashinfer DIR (FlashInfer's include directory, never part of
#     this repository), bench/flashinfer/flashinfer-check.sh into
#     OUT/flashinfer: FlashInfer's act_and_mul_kernel<__half, silu>,
#     RMSNormKernel<8, __half> and FusedAddRMSNormKernel<8, __half> as sglang
#     launches them, each against itself and with every catalogue rewrite
#     that applies (nvcc backend where clang fails); OUT/flashinfer/table.md.
#     The lit step then also runs Frontend/third-party-flashinfer.test with
#     the directory. --flashinfer-options N-M runs only the options numbered
#     N to M (OUT/flashinfer/options.txt; the control runs with N = 1), to
#     split the 31 runs over calls of a limited length;
#  2g. with --replay, per file STEPS/<kernel>[.<variant>].steps (default
#     the installed bench/plans: the best plan known per kernel, one
#     catalogue step per line, `#` comments), `astra-opt --verify` of the
#     kernel with those steps applied (--apply each, the full protocol), the
#     reports under OUT/replay and one table (bench/suite-table.py): per
#     plan its verdict, geomean, per-shape speedups and the largest shape's
#     % of copy; the suite's geometric mean over the <kernel>.steps plans
#     (a plan not verified faster counts 1x: the original is what a user
#     keeps), variants listed apart. Keeps OUT/replay/table.md;
#     --candidates DIR adds, per file DIR/<kernel>.<variant>.cu (a kernel's
#     file edited by hand, e.g. to try what a rewrite would emit before it
#     is built), `astra-opt --verify kernels/<kernel>.cu --candidate FILE`
#     with the launch overrides of DIR/<kernel>.<variant>.launch if there is
#     one (one line, e.g. `B=256` or `block-x-div=16,fold-y=16`: docs/
#     harness.md, "Launch overrides"), as rows of the same table (a
#     candidate is never a kernel's plan: it counts as a variant);
#  2h. with --experiment FILE.cu (repeatable; e.g. bench/experiments/
#     group-int8-h200.cu: hand-written forms of a kernel timed against the
#     copy of the same bytes, to learn what a rewrite should emit before it
#     is built), builds it with nvcc -O3 -arch=sm_90 and runs it, its output
#     in OUT/experiments/<name>.txt and echoed;
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
# --plans    the best plans for --backends and --profile (default: OUT/agent, where
#            --agent-suite writes them; kernels without one: their --steps file,
#            else control only)
# --achieved with --ceiling: per-shape speedups to show against the ceilings
# --steps    with --replay and --profile: the directory of .steps files
#            (default: bench/plans beside this script)
# --candidates with --replay: a directory of hand-edited candidates
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=""; tests=""; kernels=""; tools=""; out="$PWD/gpu-check-out"
skip_lit=0; skip_suite=0; agent_suite=0; backends=0; profile=0; plans=""
ceiling=0; achieved=""; replay=0; steps_dir="$here/plans"; cand_dir=""
flashinfer=""; fi_opts=(); experiments=()
lit_dirs="Harness Agent Build Transforms/warp-reduce-gpu.test Transforms/warp-reduce-tuple-gpu.test Transforms/register-cache-gpu.test Transforms/unroll-vectorized-gpu.test Transforms/coarsen-loads-gpu.test"
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
    --backends) backends=1; shift ;;
    --plans) plans=$2; shift 2 ;;
    --profile) profile=1; shift ;;
    --ceiling) ceiling=1; shift ;;
    --achieved) achieved=$2; shift 2 ;;
    --replay) replay=1; shift ;;
    --steps) steps_dir=$2; shift 2 ;;
    --candidates) cand_dir=$2; shift 2 ;;
    --flashinfer) flashinfer=$2; shift 2 ;;
    --experiment) experiments+=("$2"); shift 2 ;;
    --flashinfer-options) fi_opts=(--options "$2"); [ "${2%-*}" = 1 ] || fi_opts+=(--no-control)
      shift 2 ;;
    -h|--help) sed -n '2,93p' "$0"; exit 0 ;;
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
fi_param=()
if [ -n "$flashinfer" ]; then
  [ -f "$flashinfer/flashinfer/vec_dtypes.cuh" ] ||
    { echo "gpu-check.sh: no flashinfer/vec_dtypes.cuh under --flashinfer $flashinfer" >&2; exit 1; }
  flashinfer=$(cd "$flashinfer" && pwd)
  fi_param=(--param flashinfer_include="$flashinfer")
  lit_dirs="$lit_dirs Frontend/third-party-flashinfer.test"
fi

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
    --param astra_site_config="$out/lit/lit.site.cfg.py" "${fi_param[@]}" \
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

if [ $replay = 1 ]; then
  echo "== replay: fixed plans over the kernel suite ($steps_dir)"
  [ -d "$steps_dir" ] || { echo "gpu-check.sh: --steps $steps_dir: no such directory" >&2; exit 1; }
  mkdir -p "$out/replay"; : > "$out/replay/runs.txt"
  # verify_one NAME NOTE ASTRA-ARGS...: one --verify into OUT/replay/NAME.*,
  # its wall time in runs.txt (with NOTE) and its verdict on stdout.
  verify_one() {
    local name=$1 note=$2; shift 2
    local start end rc
    start=$(date +%s%N)
    "$astra" --verify "$@" --report "$out/replay/$name.report.json" > "$out/replay/$name.log" 2>&1
    rc=$?
    end=$(date +%s%N)
    echo "$name rc=$rc wall=$(( (end - start) / 1000000 ))e-3$note" >> "$out/replay/runs.txt"
    printf '%-36s rc=%d  %s\n' "$name" $rc "$(grep -m1 -E '^verdict' "$out/replay/$name.log")"
  }
  for steps in "$steps_dir"/*.steps; do
    [ -e "$steps" ] || continue
    name=$(basename "$steps" .steps); k=${name%%.*}
    cu="$kernels/$k.cu"; spec="$kernels/$k.astra.json"
    if [ ! -f "$cu" ] || [ ! -f "$spec" ]; then
      echo "$name: no $k.cu or $k.astra.json under $kernels: skipped"
      continue
    fi
    args=()
    while IFS= read -r line || [ -n "$line" ]; do
      line=${line%%#*}; line=$(echo $line)
      [ -n "$line" ] && args+=("--apply=$line")
    done < "$steps"
    cp "$steps" "$out/replay/$name.steps"
    verify_one "$name" "" "$cu" --spec "$spec" --cuda-path="$cuda" "${args[@]}"
  done
  if [ -n "$cand_dir" ]; then
    [ -d "$cand_dir" ] || { echo "gpu-check.sh: --candidates $cand_dir: no such directory" >&2; exit 1; }
    for cand in "$cand_dir"/*.cu; do
      [ -e "$cand" ] || continue
      name=$(basename "$cand" .cu); k=${name%%.*}
      cu="$kernels/$k.cu"; spec="$kernels/$k.astra.json"
      if [ "$name" = "$k" ] || [ ! -f "$cu" ] || [ ! -f "$spec" ]; then
        echo "$name: not <kernel>.<variant>.cu of a kernel under $kernels: skipped"
        continue
      fi
      args=()
      if [ -f "$cand_dir/$name.launch" ]; then
        launch=$(head -n1 "$cand_dir/$name.launch" | tr -d ' \t\r')
        [ -n "$launch" ] && args+=("--candidate-launch=$launch")
      fi
      verify_one "$name" " (candidate)" "$cu" --spec "$spec" --cuda-path="$cuda" \
        --candidate "$cand" "${args[@]}"
    done
  fi
  python3 "$here/suite-table.py" "$out/replay" | tee "$out/replay/table.md"
fi

if [ $backends = 1 ]; then
  plans=${plans:-$out/agent}
  bdir="$out/backends"; mkdir -p "$bdir"
  echo "== backends: clang and nvcc over the kernel suite (plans: $plans)"
  for spec in "$kernels"/*.astra.json; do
    [ -e "$spec" ] || continue
    name=$(basename "$spec" .astra.json)
    cu="$kernels/$name.cu"
    [ -e "$cu" ] || continue
    best=""
    if [ -f "$plans/$name.plan.json" ] &&
       "$astra" --apply-plan "$plans/$name.plan.json" "$cu" \
         -o "$bdir/$name.best.cu" 2> "$bdir/$name.best.log"; then
      best="$bdir/$name.best.cu"
    fi
    for b in clang nvcc; do
      common=(--backend=$b --cuda-path="$cuda" --spec "$spec")
      "$astra" --verify "$cu" "${common[@]}" \
        --report "$bdir/$name.$b.control.json" > "$bdir/$name.$b.control.log" 2>&1
      printf '%-28s %-5s control rc=%d' "$name" $b $?
      "$astra" --emit-ptx "$cu" "${common[@]}" -o "$bdir/$name.$b.orig.ptx" 2>/dev/null
      if [ -n "$best" ]; then
        "$astra" --verify "$cu" --candidate "$best" "${common[@]}" \
          --report "$bdir/$name.$b.best.json" > "$bdir/$name.$b.best.log" 2>&1
        printf '  best plan rc=%d' $?
        "$astra" --emit-ptx "$best" "${common[@]}" -o "$bdir/$name.$b.best.ptx" 2>/dev/null
      fi
      echo
    done
  done
  # SASS of every PTX, as ptxas builds it for the PTX's target.
  if [ -x "$cuda/bin/ptxas" ] && [ -x "$cuda/bin/cuobjdump" ]; then
    for ptx in "$bdir"/*.ptx; do
      [ -e "$ptx" ] || continue
      arch=$(sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$ptx" | head -1)
      "$cuda/bin/ptxas" -arch="${arch:-sm_90a}" -v "$ptx" -o "${ptx%.ptx}.cubin" \
        2> "${ptx%.ptx}.ptxas.txt" &&
        "$cuda/bin/cuobjdump" -sass "${ptx%.ptx}.cubin" > "${ptx%.ptx}.sass"
    done
  fi
  python3 - "$bdir" <<'EOF'
import glob, json, os, re, sys
bdir = sys.argv[1]
def load(path):
    try:
        rep = json.load(open(path))
    except Exception:
        return []
    return rep.get("kernels", [rep])
def largest(r):
    timed = [s for s in r["shapes"] if s.get("timing") and not s.get("generated")]
    return max(timed, key=lambda s: s["timing"]["bytes"]) if timed else None
def regs(path):
    try:
        return ",".join(re.findall(r"Used (\d+) registers", open(path).read())) or "-"
    except OSError:
        return "-"
def sass_lines(path):
    try:
        return sum(1 for l in open(path) if re.match(r"\s+/\*[0-9a-f]{4}\*/", l))
    except OSError:
        return "-"
names = sorted({os.path.basename(p).split(".")[0]
                for p in glob.glob(os.path.join(bdir, "*.control.json"))})
print("| kernel | largest shape | side | clang us | nvcc us | nvcc/clang | clang regs "
      "| nvcc regs | clang SASS | nvcc SASS | clang verdict | nvcc verdict |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
fmt = lambda x: f"{x:.2f}" if x else "-"
for n in names:
    for side, tag, key, ptx in (("original", "control", "original_us", "orig"),
                                ("best plan", "best", "candidate_us", "best")):
        rows = {b: load(os.path.join(bdir, f"{n}.{b}.{tag}.json")) for b in ("clang", "nvcc")}
        for i, r in enumerate(rows["clang"] or rows["nvcc"]):
            cells = {}
            for b in ("clang", "nvcc"):
                rr = rows[b][i] if i < len(rows[b]) else None
                big = largest(rr) if rr else None
                cells[b] = (big["timing"][key] if big else None, rr["verdict"] if rr else "-",
                            big["shape"] if big else "")
            c, v = cells["clang"][0], cells["nvcc"][0]
            ratio = f"{v / c:.3f}" if c and v else "-"
            stat = lambda b, f: f(os.path.join(bdir, f"{n}.{b}.{ptx}" + (".ptxas.txt" if f is regs else ".sass")))
            print(f"| {r['kernel']} | {cells['clang'][2] or cells['nvcc'][2]} | {side} | {fmt(c)} | {fmt(v)} "
                  f"| {ratio} | {stat('clang', regs)} | {stat('nvcc', regs)} | {stat('clang', sass_lines)} "
                  f"| {stat('nvcc', sass_lines)} | {cells['clang'][1]} | {cells['nvcc'][1]} |")
print("\nFiles: OUT/backends/<kernel>.<backend>.{control,best}.json (reports naming the backend "
      "and its flags), <kernel>.<backend>.{orig,best}.{ptx,sass}: diff them to explain a difference.")
EOF
fi

if [ $profile = 1 ]; then
  plans=${plans:-$out/agent}
  pdir="$out/profile"; mkdir -p "$pdir"
  ncu=$(command -v ncu || echo "$cuda/bin/ncu")
  echo "== profile: ncu at each kernel's largest shape (plans: $plans)"
  metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
  metrics=$metrics,dram__bytes_read.sum,dram__bytes_write.sum
  metrics=$metrics,sm__throughput.avg.pct_of_peak_sustained_elapsed
  metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
  metrics=$metrics,launch__registers_per_thread,launch__grid_size,launch__block_size
  # Warp instructions issued, all and on the XU pipe (MUFU: exp, log,
  # reciprocal, ...): where math, not bytes, may bound a kernel.
  metrics=$metrics,smsp__inst_executed.sum,smsp__inst_executed_pipe_xu.sum
  for spec in "$kernels"/*.astra.json; do
    [ -e "$spec" ] || continue
    name=$(basename "$spec" .astra.json)
    cu="$kernels/$name.cu"
    [ -e "$cu" ] || continue
    python3 "$here/ncu-profile.py" largest "$spec" "$pdir/$name.largest.astra.json"
    cand=()
    if [ -f "$plans/$name.plan.json" ] &&
       "$astra" --apply-plan "$plans/$name.plan.json" "$cu" \
         -o "$pdir/$name.best.cu" 2> "$pdir/$name.best.log"; then
      cand=(--candidate "$pdir/$name.best.cu")
      # The plan's launch contract, if it changes the launch.
      launch=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(next((k["launch"]["overrides"] for k in p.get("kernels", []) if k.get("launch", {}).get("overrides")), ""))' "$plans/$name.plan.json" 2>/dev/null)
      [ -n "$launch" ] && cand+=(--candidate-launch="$launch")
    elif [ -f "$steps_dir/$name.steps" ]; then
      # No plan file: the kernel's best plan known (bench/plans), applied by
      # --verify itself (which derives its launch from the steps).
      while IFS= read -r line || [ -n "$line" ]; do
        line=${line%%#*}; line=$(echo $line)
        [ -n "$line" ] && cand+=("--apply=$line")
      done < "$steps_dir/$name.steps"
    fi
    # The first four launches: the original's two correctness runs, then
    # the candidate's (the best plan's, else the original's again).
    timeout 300 "$ncu" --target-processes all --kernel-name-base mangled \
      -k "regex:$(python3 "$here/ncu-profile.py" names "$spec")" \
      --launch-count 4 --metrics "$metrics" --csv \
      "$astra" --verify "$cu" --spec "$pdir/$name.largest.astra.json" \
      --cuda-path="$cuda" --no-edge-shapes --shape-time=0.05 "${cand[@]}" \
      > "$pdir/$name.csv" 2> "$pdir/$name.ncu.log"
    printf '%-28s ncu rc=%d%s\n' "$name" $? "${cand[*]:+ (best plan: ${cand[*]})}"
  done
  python3 "$here/ncu-profile.py" table "$pdir"
fi

if [ $ceiling = 1 ]; then
  echo "== ceiling: a copy of each shape's bytes, timed as the harness times kernels"
  cdir="$out/ceiling"; mkdir -p "$cdir"
  nvcc=$(command -v nvcc || echo "$cuda/bin/nvcc")
  if [ $skip_suite = 1 ]; then
    echo "gpu-check.sh: --ceiling needs the control runs (drop --skip-suite)" >&2
  elif ! "$nvcc" -O3 -arch=native -o "$cdir/copy-ceiling" "$here/copy-ceiling.cu" \
         > "$cdir/nvcc.log" 2>&1; then
    echo "gpu-check.sh: could not build copy-ceiling.cu ($cdir/nvcc.log)" >&2
  else
    python3 "$here/copy-ceiling.py" bytes "$out" > "$cdir/bytes.txt" &&
      "$cdir/copy-ceiling" $(cat "$cdir/bytes.txt") > "$cdir/copy.txt" &&
      python3 "$here/copy-ceiling.py" table "$out" --copy "$cdir/copy.txt" \
        ${achieved:+--achieved "$achieved"} --json "$cdir/ceiling.json" \
        | tee "$cdir/table.md" | tail -n 22
  fi
fi

if [ -n "$flashinfer" ]; then
  echo "== FlashInfer's kernels as sglang launches them ($flashinfer)"
  "$here/flashinfer/flashinfer-check.sh" --astra "$astra" --include "$flashinfer" \
    --out "$out/flashinfer" --cuda "$cuda" "${fi_opts[@]}"
fi

if [ ${#experiments[@]} -gt 0 ]; then
  edir="$out/experiments"; mkdir -p "$edir"
  nvcc=$(command -v nvcc || echo "$cuda/bin/nvcc")
  for src in "${experiments[@]}"; do
    name=$(basename "$src" .cu)
    echo "== experiment $name ($src)"
    if ! "$nvcc" -O3 -arch=sm_90 -o "$edir/$name" "$src" > "$edir/$name.nvcc.log" 2>&1; then
      echo "gpu-check.sh: could not build $src ($edir/$name.nvcc.log)" >&2
      continue
    fi
    "$edir/$name" 2>&1 | tee "$edir/$name.txt"
  done
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
