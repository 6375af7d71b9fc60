// read-only-cache on one-element-per-thread kernels whose pointers are only
// const, not __restrict__: refused (const does not rule out aliasing) unless
// assume-noalias=1. The signature and host code stay as written.
// REQUIRES: cuda-headers
// RUN: not %astra-opt --apply=read-only-cache %s -o %t.refused.cu 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: not test -e %t.refused.cu
// RUN: %astra-opt --apply=read-only-cache:assume-noalias=1 %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %s | FileCheck %s --check-prefix=ORIG
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX

#include <cuda_runtime.h>

// CHECK:      __global__ void gather(float *out, const float *in, const int *idx, int n) {
// CHECK-NEXT:   const float *__restrict__ in_ro = in;
// CHECK-NEXT:   const int *__restrict__ idx_ro = idx;
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i < n)
// CHECK-NEXT:     out[i] = __ldg(&in_ro[__ldg(&idx_ro[i])]) + __ldg(in_ro + i);
// CHECK-NEXT: }
__global__ void gather(float *out, const float *in, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[idx[i]] + *(in + i);
}

// Vector element type: __ldg(const float4 *) exists.
// CHECK:      __global__ void shift(float4 *out, const float4 *in, int n) {
// CHECK-NEXT:   const float4 *__restrict__ in_ro = in;
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i < n) {
// CHECK-NEXT:     float4 v = __ldg(&in_ro[i]);
// CHECK-NEXT:     out[i] = make_float4(v.x + __ldg(&in_ro[i]).y, v.y, v.z, v.w);
// CHECK-NEXT:   }
// CHECK-NEXT: }
__global__ void shift(float4 *out, const float4 *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = in[i];
    out[i] = make_float4(v.x + in[i].y, v.y, v.z, v.w);
  }
}

// CHECK:      void launch(float *o, const float *i, const int *x, int n) {
// CHECK-NEXT:   gather<<<(n + 127) / 128, 128>>>(o, i, x, n);
// CHECK-NEXT: }
void launch(float *o, const float *i, const int *x, int n) {
  gather<<<(n + 127) / 128, 128>>>(o, i, x, n);
}

// REFUSED: error: rewrite 'read-only-cache' does not apply
// REFUSED-NEXT: noalias.cu:21:31: note: 'out': not read-only: stored through at 24:5
// REFUSED-NEXT: noalias.cu:21:49: note: 'in': may alias 'out', which the kernel writes (const does not rule out aliasing); declare it __restrict__ or pass assume-noalias=1 when the buffers never overlap
// REFUSED-NEXT: noalias.cu:21:64: note: 'idx': may alias 'out'
// REFUSED-NEXT: noalias.cu:36:31: note: 'out': not read-only: stored through at 40:5
// REFUSED-NEXT: noalias.cu:36:50: note: 'in': may alias 'out'

// The original loads are plain global loads; the rewrite makes them
// non-coherent (read-only cache) loads.
// ORIG-LABEL: .entry _Z6gatherPfPKfPKii(
// ORIG-NOT:   ld.global.nc
// ORIG:       ret;
// PTX-LABEL: .entry _Z6gatherPfPKfPKii(
// PTX:       ld.global.nc.b32
// PTX:       ld.global.nc.b32
// PTX:       ld.global.nc.b32
// PTX:       ret;
// Clang 22's __ldg(const float4 *) loses the .nc form (its wrapper loads
// through a reinterpret_cast): the vector load stays one 16-byte load.
// PTX-LABEL: .entry _Z5shiftP6float4PKS_i(
// PTX:       ld.global.v4.b32
