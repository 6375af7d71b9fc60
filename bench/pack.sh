#!/usr/bin/env bash
# Packs the installed tree for a GPU machine that has a driver but no LLVM:
#   bench/pack.sh [build dir, default build] [output, default .carry/astra.tar.xz]
# The tree: `cmake --install --strip` (bin/astra-opt, lib/clang/22/include,
# share/astra-opt/{bench,kernels,test}) plus LLVM's lit, FileCheck, not and
# count under share/astra-opt/test-tools, which bench/gpu-check.sh uses to run
# the GPU lit tests there. Unpack with: tar -xJf astra.tar.xz -C /tmp
# (gives /tmp/astra-inst).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUTPUT=${2:-.carry/astra.tar.xz}
LLVM_BIN=/usr/lib/llvm-22/bin
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
cmake --install "$BUILD" --prefix "$STAGE/astra-inst" --strip > /dev/null
TOOLS="$STAGE/astra-inst/share/astra-opt/test-tools"
mkdir -p "$TOOLS"
cp -r /usr/lib/llvm-22/utils/lit/lit "$TOOLS/lit"
find "$TOOLS/lit" -name __pycache__ -prune -exec rm -rf {} +
cat > "$TOOLS/lit.py" <<'PY'
# LLVM's lit, carried to a GPU machine that has no LLVM (see gpu-check.sh).
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit.main import main
main()
PY
for t in FileCheck not count; do cp "$LLVM_BIN/$t" "$TOOLS/"; done
# FileCheck needs libz3 from Debian's LLVM build; the GPU image lacks it.
z3=$(ldd "$LLVM_BIN/FileCheck" | awk '/libz3/ {print $3}')
[ -n "$z3" ] && cp "$z3" "$TOOLS/"
mkdir -p "$(dirname "$OUTPUT")"
tar -C "$STAGE" -cf - astra-inst | xz -T0 -6 > "$OUTPUT.tmp"
mv "$OUTPUT.tmp" "$OUTPUT"
echo "packed $(du -h "$OUTPUT" | cut -f1) into $OUTPUT"
