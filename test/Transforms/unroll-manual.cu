// unroll mode=manual: a grid-stride loop (runtime step kept in a const), a
// per-thread loop with a literal step, and a loop templated on the element
// type; a remainder loop runs what is left. Loops that cannot be copied say
// why.
// REQUIRES: cuda-headers
// RUN: %astra-opt --apply=unroll:mode=manual %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=unroll:mode=manual,factor=2,loop=poly:L0 %s | grep -v '^//' | FileCheck %s --check-prefix=TWO

#include <cuda_fp16.h>

// CHECK:      __global__ void scale(float *out, const float *in, float a, int n) {
// CHECK-NEXT:   {
// CHECK-NEXT:     int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:     const int i_step = blockDim.x * gridDim.x;
// CHECK-NEXT:     for (; i + 3 * i_step < n; i += 4 * i_step) {
// CHECK-NEXT:       out[i] = a * in[i];
// CHECK-NEXT:       out[i + i_step] = a * in[i + i_step];
// CHECK-NEXT:       out[i + 2 * i_step] = a * in[i + 2 * i_step];
// CHECK-NEXT:       out[i + 3 * i_step] = a * in[i + 3 * i_step];
// CHECK-NEXT:     }
// CHECK-NEXT:     for (; i < n; i += blockDim.x * gridDim.x)
// CHECK-NEXT:       out[i] = a * in[i];
// CHECK-NEXT:   }
// CHECK-NEXT: }
__global__ void scale(float *out, const float *in, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = a * in[i];
}

// CHECK:      __global__ void poly(float *out, const float *c, int terms, int n) {
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i < n) {
// CHECK-NEXT:     float s = 0.0f;
// CHECK-NEXT:     {
// CHECK-NEXT:       int k = 0;
// CHECK-NEXT:       for (; k + 3 <= terms; k += 4) {
// CHECK-NEXT:         {
// CHECK-NEXT:           float t = c[k];
// CHECK-NEXT:           s = s * 0.5f + t;
// CHECK-NEXT:         }
// CHECK-NEXT:         {
// CHECK-NEXT:           float t = c[k + 1];
// CHECK:                float t = c[k + 3];
// CHECK-NEXT:           s = s * 0.5f + t;
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:       for (; k <= terms; ++k) {
// CHECK-NEXT:         float t = c[k];
// CHECK-NEXT:         s = s * 0.5f + t;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     int j = 0;
__global__ void poly(float *out, const float *c, int terms, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k <= terms; ++k) {
      float t = c[k];
      s = s * 0.5f + t;
    }
    int j = 0;
    while (j < 4)
      s += c[j++];
    for (int k = 0; k < n; ++k) {
      if (c[k] < 0.0f)
        break;
      s += c[k];
    }
    for (int k = 0; k < n; ++k)
      k += (int)s;
    out[i] = s;
  }
}

// CHECK:      template <typename T>
// CHECK-NEXT: __global__ void axpy(T *y, const T *x, float a, int n) {
// CHECK-NEXT:   {
// CHECK-NEXT:     unsigned int i = threadIdx.x;
// CHECK-NEXT:     const unsigned int i_step = blockDim.x;
// CHECK-NEXT:     for (; i < n && (n - i - 1) / 3 >= i_step; i += 4 * i_step) {
template <typename T>
__global__ void axpy(T *y, const T *x, float a, int n) {
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
    y[i] = (T)(a * (float)x[i] + (float)y[i]);
}
template __global__ void axpy<__half>(__half *, const __half *, float, int);

// LIST: unroll-manual.cu:61:5: unroll poly poly:L0: applies: #pragma unroll 4
// LIST: unroll-manual.cu:66:5: unroll poly poly:L1: applies: #pragma unroll 4

// TWO:      for (; k + 1 <= terms; k += 2) {

// RUN: not %astra-opt --apply=unroll:mode=manual,kernel=poly,loop=poly:L1 %s -o %t.none.cu 2>&1 | FileCheck %s --check-prefix=WHILE
// RUN: not test -e %t.none.cu
// WHILE: error: rewrite 'unroll' does not apply to loop poly:L1
// WHILE-NEXT: unroll-manual.cu:66:5: note: manual unrolling needs a for loop (this is a WhileStmt)
// RUN: not %astra-opt --apply=unroll:mode=manual,loop=poly:L2 %s 2>&1 | FileCheck %s --check-prefix=BREAK
// BREAK: unroll-manual.cu:68:5: note: the body has a BreakStmt at 70:9 that a copy of the body would change
// RUN: not %astra-opt --apply=unroll:mode=manual,loop=poly:L3 %s 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: unroll-manual.cu:73:5: note: the body modifies 'k' or takes its address

// The manual copies are four loads in one block of the loop.
// PTX-LABEL: .entry _Z5scalePfPKffi(
// PTX:       Loop Header
// PTX-NOT:   bra
// PTX-COUNT-4: ld.global.b32
// PTX:       bra
// PTX:       Loop Header
