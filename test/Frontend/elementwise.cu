// One element per thread with a bounds check: no loop, load-store through
// +=, a dynamic shared buffer, __ldg and an intrinsic already in use.
// REQUIRES: cuda-headers
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s

#include <cuda_runtime.h>

__global__ void axpy(float *y, const float *x, float a, int n) {
  extern __shared__ float stage[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  stage[threadIdx.x] = __ldg(&x[i]);
  y[i] += a * stage[threadIdx.x] + __expf(x[i]);
  *(y + n + i) = *x;
}

// Loads through __ldg are loads too.
// CHECK:      "accesses": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "col": 24,
// CHECK-NEXT:     "element_type": "float",
// CHECK-NEXT:     "index": "i",
// CHECK-NEXT:     "kind": "load",
// CHECK-NEXT:     "line": 13,
// CHECK-NEXT:     "loop": null,
// CHECK-NEXT:     "pointer": "x",
// CHECK-NEXT:     "text": "__ldg(&x[i])",
// CHECK-NEXT:     "unit_stride": false
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "col": 3,
// CHECK-NEXT:     "element_type": "float",
// CHECK-NEXT:     "index": "i",
// CHECK-NEXT:     "kind": "load-store",
// CHECK-NEXT:     "line": 14,
// CHECK-NEXT:     "loop": null,
// CHECK-NEXT:     "pointer": "y",
// CHECK-NEXT:     "text": "y[i]",
// CHECK-NEXT:     "unit_stride": false
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK:          "index": "i",
// CHECK-NEXT:     "kind": "load",
// CHECK-NEXT:     "line": 14,
// CHECK-NEXT:     "loop": null,
// CHECK-NEXT:     "pointer": "x",
// CHECK-NEXT:     "text": "x[i]",
// CHECK-NEXT:     "unit_stride": false
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "base_offset": "n",
// CHECK-NEXT:     "col": 3,
// CHECK-NEXT:     "element_type": "float",
// CHECK-NEXT:     "index": "i",
// CHECK-NEXT:     "kind": "store",
// CHECK-NEXT:     "line": 15,
// CHECK-NEXT:     "loop": null,
// CHECK-NEXT:     "pointer": "y",
// CHECK-NEXT:     "text": "*(y + n + i)",
// CHECK:          "index": "0",
// CHECK-NEXT:     "kind": "load",
// CHECK-NEXT:     "line": 15,
// CHECK-NEXT:     "loop": null,
// CHECK-NEXT:     "pointer": "x",
// CHECK-NEXT:     "text": "*x",
// CHECK:      "intrinsics": [
// CHECK:          "name": "__ldg",
// CHECK-NEXT:     "text": "__ldg(&x[i])",
// CHECK:          "name": "__expf",
// CHECK-NEXT:     "text": "__expf(x[i])",
// CHECK:      "loops": [],
// CHECK:      "shared_arrays": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "bytes": null,
// CHECK-NEXT:     "col": 27,
// CHECK-NEXT:     "dynamic": true,
// CHECK-NEXT:     "element_type": "float",
// CHECK-NEXT:     "line": 9,
// CHECK-NEXT:     "name": "stage",
// CHECK-NEXT:     "size": ""
