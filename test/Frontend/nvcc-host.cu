// Host code as nvcc accepts it: max/min on host integers and mixed types,
// isfinite/isnan/isinf in a host template, clock() and time() without
// <ctime>. nvcc's headers make these visible; astra_nvcc_compat.h does the
// same for Clang (docs/nvcc-compat.md).
// REQUIRES: cuda-headers
// RUN: %astra-opt --print-kernel-model %s 2>&1 | FileCheck %s
// RUN: %astra-opt --emit-ptx %s 2>&1 | FileCheck %s --check-prefix=PTX
// Without it, the host code fails in Clang and is left out of the device
// side with a warning (DeviceSlice.h); the kernel still compiles.
// RUN: %astra-opt --extra-arg=-DASTRA_NO_NVCC_COMPAT --emit-ptx %s 2>&1 | FileCheck %s --check-prefix=OFF

#include <cstdio>

__global__ void clamp_kernel(float *y, const int *lim, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = min(max(y[i], 0.f), (float)max(lim[i], 1));
}

template <typename T> bool validate_result(const T *got, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(got[i]) || isnan(got[i]) || isinf(got[i]))
      return false;
  return true;
}

int main() {
  int n = 1 << 10, m = 3;
  unsigned u = 7;
  size_t bytes = max((size_t)n * sizeof(float), (size_t)4096);
  int blocks = min(n / 256, 65535) + max(m, 1) + (int)min(u, 8u);
  long long big = llmax(1ll, (long long)n) + max(2ll, 3ll);
  clock_t start = clock();
  time_t now = time(nullptr);
  float h[4] = {0, 1, 2, 3};
  double d[2] = {0.5, 1.5};
  bool ok = validate_result(h, 4) && validate_result(d, 2);
  printf("%zu %d %lld %ld %ld %d %f\n", bytes, blocks, big, (long)start,
         (long)now, ok, max(1.0f, 2.0));
  return ok ? 0 : 1;
}

// CHECK-NOT: warning
// CHECK-NOT: error
// CHECK: "name": "clamp_kernel",
// PTX: .entry _Z12clamp_kernelPfPKii(
// OFF-DAG: nvcc-host.cu:27:5: warning: host function 'main' left out of the device-side compile: Clang's CUDA mode rejects it ({{.*}}nvcc-host.cu:30:18: error: no matching function for call to 'max'); the kernels are compiled without it
// OFF-DAG: nvcc-host.cu:20:28: warning: host function 'validate_result' left out of the device-side compile: Clang's CUDA mode rejects it ({{.*}}nvcc-host.cu:22:10: error: no matching function for call to 'isfinite')
// OFF: .entry _Z12clamp_kernelPfPKii(
