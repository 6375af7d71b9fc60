#!/usr/bin/env bash
# Runs every kernel of the suite on the CPU, under a small emulation of the
# CUDA execution model (shim.h: one std::thread per CUDA thread, blocks one
# after another, __syncthreads as a std::barrier), on small shapes chosen to
# hit the edge cases (partial blocks, strided rows, partial quantization
# groups, empty CSR rows, non-power-of-two expert counts, tied logits, empty
# attention parts, grid-stride loops with few blocks), and compares the
# outputs with references computed in double precision (test.cc).
# It checks that the suite's kernels compute what their header comments say;
# it says nothing about races or performance on a real GPU.
#
# Usage: kernels/emu/run.sh    (needs g++ >= 11 with C++20 and the CUDA headers)
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
CXX="${CXX:-g++}"
CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 "$here/prep.py" "$tmp/src"
"$CXX" -std=c++20 -O1 -I"$CUDA_PATH/include" -I"$here" -I"$tmp" \
  -include "$here/shim.h" -o "$tmp/test" "$here/test.cc" -lpthread
"$tmp/test"
