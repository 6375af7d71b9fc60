// Loops from macros (as in PyTorch's CUDA_KERNEL_LOOP) and a macro body.
// REQUIRES: cuda-headers
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s

#include <cuda_runtime.h>

#define CUDA_KERNEL_LOOP(i, n)                                                 \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n);                 \
       i += blockDim.x * gridDim.x)
#define SQUARE(v) ((v) * (v))
#define UNROLL_FOR(k, N) for (int k = 0; k < N; ++k)

__global__ void square(float *y, const float *x, int n) {
  CUDA_KERNEL_LOOP(i, n) {
    y[i] = SQUARE(x[i]);
    UNROLL_FOR(j, 4) y[i] += tanhf(x[i]);
  }
}

// A macro argument expanded twice is loaded twice; locations point at where
// the argument is written.
// CHECK:      "accesses": [
// CHECK:          "index": "i",
// CHECK-NEXT:     "kind": "store",
// CHECK-NEXT:     "line": 15,
// CHECK-NEXT:     "loop": "square:L0",
// CHECK-NEXT:     "pointer": "y",
// CHECK-NEXT:     "text": "y[i]",
// CHECK-NEXT:     "unit_stride": true
// CHECK:          "col": 19,
// CHECK-NEXT:     "element_type": "float",
// CHECK-NEXT:     "index": "i",
// CHECK-NEXT:     "kind": "load",
// CHECK-NEXT:     "line": 15,
// CHECK:          "col": 19,
// CHECK-NEXT:     "element_type": "float",
// CHECK-NEXT:     "index": "i",
// CHECK-NEXT:     "kind": "load",
// CHECK-NEXT:     "line": 15,
// Inside the loop on j, i is invariant.
// CHECK:          "kind": "load-store",
// CHECK-NEXT:     "line": 16,
// CHECK-NEXT:     "loop": "square:L1",
// CHECK-NEXT:     "pointer": "y",
// CHECK-NEXT:     "stride": 0,
// CHECK:      "loops": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "bound": "(n)",
// CHECK-NEXT:     "class": "grid-stride",
// CHECK-NEXT:     "col": 3,
// CHECK-NEXT:     "compare": "<",
// CHECK-NEXT:     "condition": "i < (n)",
// CHECK-NEXT:     "depth": 0,
// CHECK-NEXT:     "dim": "x",
// CHECK-NEXT:     "from_macro": true,
// CHECK-NEXT:     "id": "square:L0",
// CHECK-NEXT:     "induction_var": "i",
// CHECK-NEXT:     "init": "blockIdx.x * blockDim.x + threadIdx.x",
// CHECK-NEXT:     "kind": "for",
// CHECK-NEXT:     "line": 14,
// CHECK-NEXT:     "parent": null,
// CHECK-NEXT:     "step": "blockDim.x * gridDim.x",
// CHECK-NEXT:     "trip_count": null
// CHECK:          "from_macro": true,
// CHECK-NEXT:     "id": "square:L1",
// CHECK-NEXT:     "induction_var": "j",
// CHECK:          "parent": "square:L0",
// CHECK-NEXT:     "step": "1",
// CHECK-NEXT:     "trip_count": 4
// CHECK:      "math_calls": [
// CHECK:          "loop": "square:L1",
// CHECK-NEXT:     "name": "tanhf",
// CHECK-NEXT:     "text": "tanhf(x[i])",
