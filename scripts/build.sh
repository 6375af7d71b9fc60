#!/usr/bin/env bash
# Installs what is missing (Debian packages), configures and builds astra-opt.
# Usage: scripts/build.sh [build dir, default: build]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}

PKGS="cmake ninja-build g++ ccache python3 llvm-22-dev libclang-22-dev llvm-22-tools \
libclang-common-22-dev lld-22 clang-22 libclang-rt-22-dev libgtest-dev zlib1g-dev libzstd-dev \
libcurl4-openssl-dev"
# torch 1.13's C++ headers (torch/extension.h needs pybind11's): the torch
# extension tests (test/Frontend/torch-extension.test, test/Build/torch-*)
# parse examples/torch_ext with them; ~70 s and 512 MB on a fresh machine.
PKGS="$PKGS libtorch-dev pybind11-dev"
missing=""
for p in $PKGS; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi

# ccache hits across clones in other directories (CI builds a fresh clone).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
# Linking the static Clang/LLVM binary takes ~3 GB of memory per link job.
cmake --build "$BUILD" -- -j"$(nproc)"
