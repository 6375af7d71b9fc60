// Block per row (an RMS norm): a local row pointer, a block-stride loop, a
// shared-memory tree reduction with barriers, warp shuffles and rsqrtf.
// REQUIRES: cuda-headers
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s

#include <cuda_runtime.h>

__global__ void rmsnorm(float *__restrict__ out, const float *__restrict__ x,
                        const float *__restrict__ w, int d, float eps) {
  __shared__ float partial[256];
  const float *xr = x + (size_t)blockIdx.x * d;
  float sum = 0.f;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    float v = xr[c];
    sum += v * v;
  }
  for (int off = 16; off > 0; off /= 2)
    sum += __shfl_xor_sync(0xffffffff, sum, off);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = sum;
  __syncthreads();
  for (int s = 4; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  float scale = rsqrtf(partial[0] / d + eps);
  for (int c = threadIdx.x; c < d; c += blockDim.x)
    out[blockIdx.x * d + c] = xr[c] * scale * w[c];
}

// Loads through the row pointer belong to x, unit stride in c.
// CHECK:      "accesses": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "base_offset": "(size_t)blockIdx.x * d",
// CHECK-NEXT:     "col": 15,
// CHECK-NEXT:     "element_type": "float",
// CHECK-NEXT:     "index": "c",
// CHECK-NEXT:     "kind": "load",
// CHECK-NEXT:     "line": 14,
// CHECK-NEXT:     "loop": "rmsnorm:L0",
// CHECK-NEXT:     "pointer": "x",
// CHECK-NEXT:     "text": "xr[c]",
// CHECK-NEXT:     "unit_stride": true,
// CHECK-NEXT:     "via": "xr"
// CHECK:          "index": "blockIdx.x * d + c",
// CHECK-NEXT:     "kind": "store",
// CHECK-NEXT:     "line": 29,
// CHECK-NEXT:     "loop": "rmsnorm:L3",
// CHECK-NEXT:     "pointer": "out",
// CHECK-NEXT:     "text": "out[blockIdx.x * d + c]",
// CHECK-NEXT:     "unit_stride": true
// CHECK:          "pointer": "x",
// CHECK:          "text": "w[c]",
// CHECK-NEXT:     "unit_stride": true
// Shared-memory accesses are not global accesses.
// CHECK-NOT:      "text": "partial
// CHECK:      "barriers": [
// CHECK:          "line": 21,
// CHECK-NEXT:     "loop": null,
// CHECK-NEXT:     "name": "__syncthreads",
// CHECK:          "line": 25,
// CHECK-NEXT:     "loop": "rmsnorm:L2",
// CHECK-NEXT:     "name": "__syncthreads",

// CHECK:      "loops": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "bound": "d",
// CHECK-NEXT:     "class": "block-stride",
// CHECK-NEXT:     "col": 3,
// CHECK-NEXT:     "compare": "<",
// CHECK-NEXT:     "condition": "c < d",
// CHECK-NEXT:     "depth": 0,
// CHECK-NEXT:     "dim": "x",
// CHECK-NEXT:     "from_macro": false,
// CHECK-NEXT:     "id": "rmsnorm:L0",
// CHECK-NEXT:     "induction_var": "c",
// CHECK-NEXT:     "init": "threadIdx.x",
// CHECK-NEXT:     "kind": "for",
// CHECK-NEXT:     "line": 13,
// CHECK-NEXT:     "parent": null,
// CHECK-NEXT:     "step": "blockDim.x",
// CHECK-NEXT:     "trip_count": null
// Geometric steps: 16 8 4 2 1 and 4 2 1.
// CHECK:          "class": "plain",
// CHECK:          "id": "rmsnorm:L1",
// CHECK-NEXT:     "induction_var": "off",
// CHECK-NEXT:     "init": "16",
// CHECK:          "step": "/2",
// CHECK-NEXT:     "trip_count": 5
// CHECK:          "id": "rmsnorm:L2",
// CHECK:          "step": ">>1",
// CHECK-NEXT:     "trip_count": 3
// CHECK:          "class": "block-stride",
// CHECK:          "id": "rmsnorm:L3",

// CHECK:      "math_calls": [
// CHECK:          "loop": null,
// CHECK-NEXT:     "name": "rsqrtf",
// CHECK-NEXT:     "text": "rsqrtf(partial[0] / d + eps)",
// CHECK-NEXT:     "type": "float"
// CHECK:          "name": "/",
// CHECK-NEXT:     "text": "partial[0] / d",

// CHECK:      "shared_arrays": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "bytes": 1024,
// CHECK-NEXT:     "col": 20,
// CHECK-NEXT:     "dynamic": false,
// CHECK-NEXT:     "element_type": "float",
// CHECK-NEXT:     "line": 10,
// CHECK-NEXT:     "name": "partial",
// CHECK-NEXT:     "size": "256"
// CHECK:      "warp_intrinsics": [
// CHECK:          "loop": "rmsnorm:L1",
// CHECK-NEXT:     "name": "__shfl_xor_sync",
// CHECK-NEXT:     "text": "__shfl_xor_sync(0xffffffff, sum, off)",
