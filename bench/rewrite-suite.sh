#!/usr/bin/env bash
# rewrite-suite.sh: for every kernel of the suite, apply a fixed list of
# catalogue plans (the first that applies), verify + time it against the
# original on the GPU with the harness, and print one line per kernel.
# Builds nothing; runs from an installed tree.
#   bench/rewrite-suite.sh --prefix DIR [--kernels DIR] [--out DIR]
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=""; kernels=""; out="$PWD/rewrite-suite-out"
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --kernels) kernels=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "rewrite-suite.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
[ -n "$prefix" ] || prefix=$(cd "$here/../../.." && pwd)
astra="$prefix/bin/astra-opt"
[ -n "$kernels" ] || kernels="$prefix/share/astra-opt/kernels"
mkdir -p "$out"
# Plans, best guess first; each kernel takes the first plan whose every rewrite
# applies. Two-pass row kernels (norms, per-token quantization): the row kept
# in registers (register-cache, before vectorize-loads, which then vectorizes
# the fallback loops), the tree reduction as warp shuffles, fast math. Then
# without register-cache, without warp-reduce, and each older rewrite alone.
# vectorize-loads covers every form it knows under one name: thread-partitioned
# loops (rmsnorm, silu_and_mul, ...), one element per thread (gather_rows,
# gelu_and_mul, spmm_csr), feature loops around edge loops (segment_mean_csr)
# and float atomics (scatter_add); --list-rewrites says which form applies where.
plans=("register-cache warp-reduce vectorize-loads fast-math"
       "register-cache vectorize-loads fast-math"
       "warp-reduce vectorize-loads fast-math"
       "warp-reduce fast-math"
       "vectorize-loads fast-math" "vectorize-loads" "warp-reduce" "fast-math"
       "vectorize-loads:width=8")
printf '%-28s %-52s %-22s %s\n' kernel plan verdict "speedup (geomean)" > "$out/summary.txt"
for spec in "$kernels"/*.astra.json; do
  k=$(basename "$spec" .astra.json)
  src="$kernels/$k.cu"
  chosen=""
  for plan in "${plans[@]}"; do
    args=(); for r in $plan; do args+=("--apply=$r"); done
    if "$astra" "${args[@]}" "$src" -o "$out/$k.cand.cu" 2>/dev/null; then chosen=$plan; break; fi
  done
  if [ -z "$chosen" ]; then
    printf '%-28s %-52s %-22s %s\n' "$k" "-" "no plan applies" "-" >> "$out/summary.txt"
    continue
  fi
  "$astra" --verify "$src" --spec "$spec" --candidate "$out/$k.cand.cu" \
    --report "$out/$k.report.json" > "$out/$k.log" 2>&1
  verdict=$(grep -E '^verdict:' "$out/$k.log" | head -1 | sed 's/^verdict: //')
  printf '%-28s %-52s %s\n' "$k" "$chosen" "${verdict:-error (see $k.log)}" >> "$out/summary.txt"
  tail -1 "$out/summary.txt"
done
echo "== summary"
cat "$out/summary.txt"
