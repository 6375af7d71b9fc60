#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit + lit) through
# ctest, whose closing line is the summary CI reads.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
scripts/build.sh "$BUILD"
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)"
