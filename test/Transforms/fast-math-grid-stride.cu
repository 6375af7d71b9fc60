// fast-math on a grid-stride loop calling a device helper and a
// __host__ __device__ helper; host code and the HD helper stay as they are.
// REQUIRES: cuda-headers, libdevice
// RUN: %astra-opt --apply=fast-math %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %s | FileCheck %s --check-prefix=ORIG
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX

#include <cuda_runtime.h>

// CHECK:      __device__ float sigmoid(float x) { return __frcp_rn(1.0f + __expf(-x)); }
// CHECK-NEXT: __host__ __device__ float scaled(float x) { return expf(x) / 3.0f; }
__device__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
__host__ __device__ float scaled(float x) { return expf(x) / 3.0f; }

// CHECK:      __global__ void softplus(float *out, const float *in, int n) {
// CHECK-NEXT:   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// CHECK-NEXT:        i += blockDim.x * gridDim.x) {
// CHECK-NEXT:     float x = in[i];
// CHECK-NEXT:     out[i] = __fdividef(__logf(1.0f + __expf(x)), x) + sigmoid(x) + scaled(x);
// CHECK-NEXT:   }
// CHECK-NEXT: }
__global__ void softplus(float *out, const float *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float x = in[i];
    out[i] = logf(1.0f + expf(x)) / x + sigmoid(x) + scaled(x);
  }
}

// Host code is byte-for-byte the original.
// CHECK:      void launch(float *o, const float *i, int n) {
// CHECK-NEXT:   softplus<<<(n + 255) / 256, 256>>>(o, i, n);
// CHECK-NEXT:   float host = expf(1.0f) / 2.0f;
// CHECK-NEXT:   (void)host;
// CHECK-NEXT: }
// CHECK-NOT: __
void launch(float *o, const float *i, int n) {
  softplus<<<(n + 255) / 256, 256>>>(o, i, n);
  float host = expf(1.0f) / 2.0f;
  (void)host;
}

// The original divides with the IEEE sequence; the rewrite uses div.approx,
// __logf's lg2.approx and no IEEE division is left in the loop.
// ORIG-LABEL: .entry _Z8softplusPfPKfi(
// ORIG:       div.rn.f32
// ORIG-NOT:   lg2.approx
// ORIG:       ret;
// PTX-LABEL: .entry _Z8softplusPfPKfi(
// PTX-NOT:   div.rn.f32
// PTX:       lg2.approx.f32
// PTX:       div.approx.f32
// PTX:       ret;
