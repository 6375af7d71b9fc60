#!/usr/bin/env bash
# The main job on an example kernel: installs what is missing, builds, then
# rewrites kernels/silu_and_mul.cu (vectorized 16-byte loads, fast math),
# shows the diff and the PTX resource report, and, on a machine with a GPU,
# verifies the rewrite against the original with the profiling harness.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
scripts/build.sh "$BUILD"
ASTRA="$BUILD/bin/astra-opt"
K=kernels/silu_and_mul.cu
OUT=${OUT_DIR:-$BUILD/demo}
mkdir -p "$OUT"

echo "== where each rewrite applies"
"$ASTRA" --list-rewrites "$K"
echo "== rewriting: vectorize-loads, then fast-math -> $OUT/silu_and_mul.cu"
"$ASTRA" --apply=vectorize-loads --apply=fast-math "$K" -o "$OUT/silu_and_mul.cu"
diff -u "$K" "$OUT/silu_and_mul.cu" || true
if command -v ptxas >/dev/null || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" ]; then
  echo "== PTX resources: original"
  "$ASTRA" --ptx-stats "$K"
  echo "== PTX resources: rewritten"
  "$ASTRA" --ptx-stats "$OUT/silu_and_mul.cu"
fi
echo "== vector loads in the rewritten PTX:"
"$ASTRA" --emit-ptx "$OUT/silu_and_mul.cu" | grep -c 'ld.global.v4' || true
if nvidia-smi -L >/dev/null 2>&1; then
  echo "== verifying on the GPU"
  "$ASTRA" --verify "$K" --spec kernels/silu_and_mul.astra.json \
    --candidate "$OUT/silu_and_mul.cu" --report "$OUT/report.json"
else
  echo "== no GPU here: to verify on a GPU machine run"
  echo "   $ASTRA --verify $K --spec kernels/silu_and_mul.astra.json --candidate $OUT/silu_and_mul.cu"
fi
