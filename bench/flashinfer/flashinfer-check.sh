#!/usr/bin/env bash
# flashinfer-check.sh: FlashInfer's act_and_mul_kernel<__half, silu>,
# RMSNormKernel<8, __half> and FusedAddRMSNormKernel<8, __half>, instantiated
# as sglang's sgl-kernel launches them, verified on the GPU: the control
# (each kernel against itself) and every catalogue rewrite that applies
# (`--list-options`), each with the clang backend, and with the nvcc backend
# where the clang one fails. Run by `gpu-check.sh --flashinfer DIR`; needs no
# GPU up to the first --verify (which then exits 2: the table says so).
#
#   flashinfer-check.sh --astra BIN --include DIR --out DIR [--cuda DIR]
#                       [--shape-time S] [--options N-M] [--no-control]
#
# --include  FlashInfer's include directory (holds flashinfer/vec_dtypes.cuh;
#            never part of this repository)
# --options  only the options numbered N to M (1-based, in --list-options
#            order, options.txt) and --no-control: no control runs; to split
#            the runs (about 10 s each on an H100) over several calls
# Writes into OUT: headers.*.txt (what astra-opt sees of the TU that includes
# the headers), flashinfer-inline.cu (the TU with the kernels copied in,
# inline-kernels.py), options.txt, one report and log per run, runs.tsv (one
# line per run, written as it goes) and table.md.
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
astra=""; inc=""; out=""; cuda=${CUDA_HOME:-/usr/local/cuda}; shape_time=0.25
first=1; last=1000000; control=1
while [ $# -gt 0 ]; do
  case "$1" in
    --astra) astra=$2; shift 2 ;;
    --include) inc=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --cuda) cuda=$2; shift 2 ;;
    --shape-time) shape_time=$2; shift 2 ;;
    --options) first=${2%-*}; last=${2#*-}; shift 2 ;;
    --no-control) control=0; shift ;;
    *) echo "flashinfer-check.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
[ -x "$astra" ] || { echo "flashinfer-check.sh: give --astra <astra-opt>" >&2; exit 1; }
[ -f "$inc/flashinfer/vec_dtypes.cuh" ] ||
  { echo "flashinfer-check.sh: no flashinfer/vec_dtypes.cuh under '$inc'" >&2; exit 1; }
inc=$(cd "$inc" && pwd)
mkdir -p "$out"; out=$(cd "$out" && pwd)
tu="$here/flashinfer-serving.cu"; spec="$here/flashinfer-serving.astra.json"
common=(--extra-arg=-I"$inc" --cuda-path="$cuda")

echo "== FlashInfer: the TU that includes the headers ($tu)"
"$astra" --list-rewrites "${common[@]}" "$tu" > "$out/headers.list-rewrites.txt" 2> "$out/headers.err"
echo "rewrite sites in the library kernels: $(grep -c . "$out/headers.list-rewrites.txt")" \
  "(astra-opt models the kernels written in the main file only)"
for b in clang nvcc; do
  "$astra" --emit-ptx --backend=$b "${common[@]}" "$tu" -o "$out/headers.$b.ptx" 2>> "$out/headers.err"
  echo "$b backend: rc=$? entries: $(grep -c '\.entry' "$out/headers.$b.ptx" 2>/dev/null)"
done

echo "== the kernels copied into the TU (inline-kernels.py)"
inl="$out/flashinfer-inline.cu"
python3 "$here/inline-kernels.py" "$tu" -I "$inc" -o "$inl" || exit 1
"$astra" --check-spec --spec "$spec" "${common[@]}" "$inl" 2>&1 | grep -v "repaired for Clang" ||
  true
"$astra" --list-options "${common[@]}" "$inl" 2>/dev/null | sed 's/^[^ ]* //; s/: .*//' > "$out/options.txt"
"$astra" --list-rewrites "${common[@]}" "$inl" > "$out/list-rewrites.txt" 2>/dev/null
echo "options that apply: $(grep -c . "$out/options.txt")"

# The spec's name of the kernel a --list-options line edits.
spec_kernel() {
  python3 - "$spec" "$1" <<'PY'
import json, re, sys
opt = sys.argv[2]
m = re.search(r"(?:kernel|loop)=([A-Za-z_]\w*)", opt)
for k in json.load(open(sys.argv[1]))["kernels"]:
    base = k["kernel"].split("<")[0].split("::")[-1]
    if m and base == m.group(1):
        print(k["kernel"])
PY
}

tsv="$out/runs.tsv"
[ -f "$tsv" ] || printf 'kernel\tplan\tbackend\trc\treport\n' > "$tsv"
# run NAME KERNEL [--apply=...]: the clang backend, then nvcc when clang fails
# for another reason than a missing GPU (exit 2).
run() {
  local name=$1 kernel=$2; shift 2
  local b rc
  for b in clang nvcc; do
    "$astra" --verify --backend=$b "${common[@]}" --spec "$spec" --kernel "$kernel" \
      --shape-time="$shape_time" "$@" --report "$out/$name.$b.json" "$inl" \
      > "$out/$name.$b.log" 2>&1
    rc=$?
    printf '%s\t%s\t%s\t%s\t%s\n' "$kernel" "${1:-control}" $b $rc "$name.$b.json" >> "$tsv"
    printf '%-44s %-58s %-5s rc=%d\n' "${kernel:0:44}" "${1:-control}" $b $rc
    [ $rc = 0 ] || [ $rc = 2 ] && break
  done
}

echo "== control runs and every option, --shape-time=$shape_time"
n=0
[ $control = 1 ] && while read -r k; do
  n=$((n + 1)); run "k$n.control" "$k"
done < <(python3 -c 'import json,sys; [print(k["kernel"]) for k in json.load(open(sys.argv[1]))["kernels"]]' "$spec")
i=0
while read -r opt; do
  [ -n "$opt" ] || continue
  i=$((i + 1))
  [ $i -ge "$first" ] && [ $i -le "$last" ] || continue
  k=$(spec_kernel "$opt")
  [ -n "$k" ] || { echo "no spec kernel for option $opt" >&2; continue; }
  run "opt$i" "$k" "--apply=$opt"
done < "$out/options.txt"

python3 "$here/flashinfer-table.py" "$out" | tee "$out/table.md"
