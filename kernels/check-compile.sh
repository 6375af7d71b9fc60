#!/usr/bin/env bash
# Checks every kernel of the suite, without a GPU:
#   1. clang device compile to PTX (sm_90a): no error, and no warning except
#      the expected -Wunknown-cuda-version one about a CUDA newer than clang knows;
#   2. nvcc compile (sm_90): no error, no warning;
#   3. the spec <name>.astra.json is valid JSON (python3 -m json.tool);
#   4. every kernel the spec names is an entry of the PTX (templates: the
#      named instantiation, matched on the demangled name);
#   5. check-specs.py: arguments match the parameters (order, names, dtypes,
#      constness), expressions evaluate for every shape, launches are valid,
#      buffers are under 1.5 GB.
# Prints one line per kernel file and "N passed, N failed"; exit 1 if any failed.
#
# Usage: kernels/check-compile.sh [file.cu...]   (default: every kernels/*.cu)
# Environment: CLANG (clang++-22), NVCC (nvcc), CUDA_PATH (/usr/local/cuda),
#              ARCH_CLANG (sm_90a), ARCH_NVCC (sm_90), KEEP=1 keeps the outputs.

set -u
here="$(cd "$(dirname "$0")" && pwd)"
CLANG="${CLANG:-clang++-22}"
NVCC="${NVCC:-nvcc}"
CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
ARCH_CLANG="${ARCH_CLANG:-sm_90a}"
ARCH_NVCC="${ARCH_NVCC:-sm_90}"
if command -v llvm-cxxfilt-22 >/dev/null 2>&1; then
  CXXFILT=llvm-cxxfilt-22
else
  CXXFILT=c++filt
fi

tmp="$(mktemp -d)"
if [ "${KEEP:-0}" = 1 ]; then
  echo "outputs kept in $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi

if [ $# -gt 0 ]; then
  files=("$@")
else
  files=("$here"/*.cu)
fi

passed=0
failed=0
for cu in "${files[@]}"; do
  name="$(basename "$cu" .cu)"
  spec="${cu%.cu}.astra.json"
  problems=()

  # 1. clang, device side, to PTX.
  if ! "$CLANG" -x cuda --cuda-device-only --cuda-gpu-arch="$ARCH_CLANG" \
      --cuda-path="$CUDA_PATH" -O3 -S -o "$tmp/$name.ptx" "$cu" \
      2>"$tmp/$name.clang.err"; then
    problems+=("clang failed")
  fi
  if grep -v -e 'Wunknown-cuda-version' -e '^[0-9]* warnings\? generated' \
      "$tmp/$name.clang.err" | grep -q .; then
    problems+=("clang diagnostics")
  fi

  # 2. nvcc.
  if ! "$NVCC" -arch="$ARCH_NVCC" -c -o "$tmp/$name.o" "$cu" \
      >"$tmp/$name.nvcc.err" 2>&1; then
    problems+=("nvcc failed")
  elif [ -s "$tmp/$name.nvcc.err" ]; then
    problems+=("nvcc diagnostics")
  fi

  # 3. the spec is JSON.
  if [ ! -f "$spec" ]; then
    problems+=("no spec $spec")
  elif ! python3 -m json.tool "$spec" >/dev/null 2>"$tmp/$name.json.err"; then
    problems+=("spec is not valid JSON")
  else
    # 4. the kernels the spec names are PTX entries.
    if [ -f "$tmp/$name.ptx" ]; then
      sed -n 's/^.*\.entry[[:space:]]*\([A-Za-z0-9_]*\)(.*$/\1/p' "$tmp/$name.ptx" |
        "$CXXFILT" | sed -e 's/^void //' -e 's/(.*$//' -e 's/ //g' \
        >"$tmp/$name.entries"
      python3 - "$spec" >"$tmp/$name.names" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
for k in spec.get("kernels", [spec]):
    print(k.get("kernel", "").replace(" ", ""))
PY
      while read -r k; do
        if ! grep -qxF "$k" "$tmp/$name.entries"; then
          problems+=("no PTX entry for $k")
        fi
      done <"$tmp/$name.names"
    fi
    # 5. the spec matches the source.
    if ! python3 "$here/check-specs.py" "$spec" >"$tmp/$name.spec.err" 2>&1; then
      problems+=("spec check failed")
    fi
  fi

  if [ ${#problems[@]} -eq 0 ]; then
    echo "PASS $name ($(wc -l <"$tmp/$name.entries") entries)"
    passed=$((passed + 1))
  else
    echo "FAIL $name: $(IFS=';'; echo "${problems[*]}")"
    for f in clang.err nvcc.err json.err spec.err; do
      [ -s "$tmp/$name.$f" ] && sed 's/^/    /' "$tmp/$name.$f"
    done
    failed=$((failed + 1))
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
