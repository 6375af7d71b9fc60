#!/usr/bin/env bash
# The main job on an example kernel: installs what is missing, builds, then
# runs `astra-opt --agent-rewrite kernels/silu_and_mul.cu`. On a machine with
# a GPU the agent searches the rewrite catalogue, proves each candidate with
# the harness, writes the faster file, a report and a replayable plan, and
# shows the diff. Without a GPU it prints what it would try (--dry-run).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
scripts/build.sh "$BUILD"
ASTRA="$BUILD/bin/astra-opt"
K=kernels/silu_and_mul.cu
OUT=${OUT_DIR:-$BUILD/demo}
mkdir -p "$OUT"

if nvidia-smi -L >/dev/null 2>&1; then
  echo "== astra-opt --agent-rewrite $K (search, prove, keep the fastest)"
  "$ASTRA" --agent-rewrite "$K" -o "$OUT/silu_and_mul.cu" \
    --report "$OUT/report.json" --plan "$OUT/plan.json"
  echo "== what changed"
  diff -u "$K" "$OUT/silu_and_mul.cu" || true
  echo "== report: $OUT/report.md; replay in a build: $ASTRA --apply-plan $OUT/plan.json $K"
else
  echo "== no GPU here: what astra-opt --agent-rewrite $K would try"
  "$ASTRA" --agent-rewrite --dry-run "$K"
  echo "== run it on a GPU machine to prove and keep the fastest:"
  echo "   $ASTRA --agent-rewrite $K -o silu_fast.cu --report report.json --plan plan.json"
fi
