// read-only-cache where the author declared the inputs __restrict__ (legal
// without assume-noalias): a grid-stride loop and a block-per-row kernel
// templated on the element type that reads strided rows through a local copy
// of the pointer. Written pointers are refused with the store's location.
// REQUIRES: cuda-headers
// RUN: %astra-opt --apply=read-only-cache %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=read-only-cache:kernel=rmsnorm %s | grep -v '^//' | FileCheck %s --check-prefix=ONE

#include <cuda_fp16.h>
#include <cuda_bf16.h>

// CHECK:      __global__ void axpy(float *__restrict__ y, const float *__restrict__ x,
// CHECK-NEXT:                      float a, int n) {
// CHECK-NEXT:   const float *__restrict__ x_ro = x;
// CHECK-NEXT:   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// CHECK-NEXT:        i += blockDim.x * gridDim.x)
// CHECK-NEXT:     y[i] = a * __ldg(&x_ro[i]) + y[i];
// CHECK-NEXT: }
__global__ void axpy(float *__restrict__ y, const float *__restrict__ x,
                     float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// CHECK:      template <typename T>
// CHECK-NEXT: __global__ void rmsnorm(T *out, const T *__restrict__ in,
// CHECK-NEXT:                         const T *__restrict__ w, int d, int stride) {
// CHECK-NEXT:   const T *__restrict__ in_ro = in;
// CHECK-NEXT:   const T *__restrict__ w_ro = w;
// CHECK-NEXT:   const T *row = in_ro + blockIdx.x * stride;
// CHECK-NEXT:   float sum = 0.0f;
// CHECK-NEXT:   for (int c = threadIdx.x; c < d; c += blockDim.x) {
// CHECK-NEXT:     float v = (float)__ldg(&row[c]);
// CHECK-NEXT:     sum += v * v;
// CHECK-NEXT:   }
// CHECK-NEXT:   float inv = rsqrtf(sum / d + 1e-6f);
// CHECK-NEXT:   for (int c = threadIdx.x; c < d; c += blockDim.x)
// CHECK-NEXT:     out[blockIdx.x * stride + c] =
// CHECK-NEXT:         (T)((float)__ldg(&row[c]) * inv * (float)__ldg(&w_ro[c]));
// CHECK-NEXT: }
template <typename T>
__global__ void rmsnorm(T *out, const T *__restrict__ in,
                        const T *__restrict__ w, int d, int stride) {
  const T *row = in + blockIdx.x * stride;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    float v = (float)row[c];
    sum += v * v;
  }
  float inv = rsqrtf(sum / d + 1e-6f);
  for (int c = threadIdx.x; c < d; c += blockDim.x)
    out[blockIdx.x * stride + c] =
        (T)((float)row[c] * inv * (float)w[c]);
}
template __global__ void rmsnorm<__half>(__half *, const __half *,
                                         const __half *, int, int);
template __global__ void rmsnorm<__nv_bfloat16>(__nv_bfloat16 *,
                                                const __nv_bfloat16 *,
                                                const __nv_bfloat16 *, int,
                                                int);

// A pointer handed to a helper that writes through it is not read-only.
__device__ void put(float *p, float v) { *p = v; }
__global__ void relay(float *a, float *__restrict__ b) { put(a, b[0]); }

// LIST:      read-only-cache axpy: does not apply: 'y': not read-only: stored through at 26:5
// LIST-NEXT: read-only-cache axpy: applies: 'x': 1 load(s) -> __ldg through 'const float *__restrict__ x_ro'
// LIST-NEXT: read-only-cache rmsnorm: does not apply: 'out': not read-only: stored through at 56:5
// LIST-NEXT: read-only-cache rmsnorm: applies: 'in': 2 load(s) -> __ldg through 'const T *__restrict__ in_ro'
// LIST-NEXT: read-only-cache rmsnorm: applies: 'w': 1 load(s) -> __ldg through 'const T *__restrict__ w_ro'
// LIST-NEXT: read-only-cache relay: does not apply: 'a': not read-only: passed to 'put', which may write through it at 68:58
// LIST-NEXT: read-only-cache relay: applies: 'b': 1 load(s)

// ONE:      float a, int n) {
// ONE-NEXT:   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// ONE:        const T *__restrict__ in_ro = in;

// PTX-LABEL: .entry _Z7rmsnormI6__halfEvPT_PKS1_S4_ii(
// PTX:       ld.global.nc.b16
// PTX-LABEL: .entry _Z7rmsnormI13__nv_bfloat16EvPT_PKS1_S4_ii(
// PTX:       ld.global.nc.b16
