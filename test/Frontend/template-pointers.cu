// Pointer arithmetic in a template has dependent types; the pointer is still
// traced to its parameter. Atomics are read-modify-write accesses.
// REQUIRES: cuda-headers
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s

#include <cuda_runtime.h>
#include <cuda_fp16.h>

template <typename T>
__global__ void scatter(float *out, const T *in, const int *idx, int n,
                        int ld) {
  const T *row = in + blockIdx.x * ld + 1;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float v = (float)*(row + i);
    atomicAdd(out + idx[i], v);
  }
}
template __global__ void scatter<__half>(float *, const __half *, const int *,
                                         int, int);

// CHECK:      "accesses": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "base_offset": "blockIdx.x * ld + 1",
// CHECK-NEXT:     "col": 22,
// CHECK-NEXT:     "element_type": "T",
// CHECK-NEXT:     "index": "i",
// CHECK-NEXT:     "kind": "load",
// CHECK-NEXT:     "line": 14,
// CHECK-NEXT:     "loop": "scatter:L0",
// CHECK-NEXT:     "pointer": "in",
// CHECK-NEXT:     "text": "*(row + i)",
// CHECK-NEXT:     "unit_stride": true,
// CHECK-NEXT:     "via": "row"
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "atomic": true,
// CHECK-NEXT:     "col": 5,
// CHECK-NEXT:     "element_type": "float",
// CHECK-NEXT:     "index": "idx[i]",
// CHECK-NEXT:     "kind": "load-store",
// CHECK-NEXT:     "line": 15,
// CHECK-NEXT:     "loop": "scatter:L0",
// CHECK-NEXT:     "pointer": "out",
// CHECK-NEXT:     "text": "atomicAdd(out + idx[i], v)",
// CHECK-NEXT:     "unit_stride": false
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK:          "index": "i",
// CHECK-NEXT:     "kind": "load",
// CHECK:          "pointer": "idx",
// CHECK-NEXT:     "text": "idx[i]",
// CHECK-NEXT:     "unit_stride": true
// CHECK-NEXT:   }
// CHECK-NEXT: ],
