// hoist-invariant: block-per-row loops (nested), a grid-stride loop, a
// per-thread bounds-checked kernel with an inner loop, and a template over
// the element type. Each expression leaves the outermost loop it is
// invariant in; memory reads, modified and address-taken variables and
// macro expansions are refused with the reason.
// REQUIRES: cuda-headers, libdevice
// RUN: %astra-opt --apply=hoist-invariant %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=hoist-invariant:loop=rows:L1 %s | grep -v '^//' | FileCheck %s --check-prefix=INNER

#include <cuda_fp16.h>
#define SCALED(x) ((x) / 7.0f)

// CHECK:      __global__ void rows(float *out, const float *in, float temp, int n,
// CHECK-NEXT:                      int d) {
// CHECK-NEXT:   float bias = 0.5f;
// CHECK-NEXT:   const float quot_hoisted = 1.0f / sqrtf((float)d);
// CHECK-NEXT:   for (int r = blockIdx.x; r < n; r += gridDim.x) {
// CHECK-NEXT:     const float logf_hoisted = logf(temp + bias);
// CHECK-NEXT:     for (int c = threadIdx.x; c < d; c += blockDim.x)
// CHECK-NEXT:       out[r * d + c] = expf(in[r * d + c] / temp - logf_hoisted) *
// CHECK-NEXT:                        quot_hoisted + SCALED(temp);
// CHECK-NEXT:     bias += 1.0f;
// CHECK-NEXT:   }
// CHECK-NEXT: }
__global__ void rows(float *out, const float *in, float temp, int n,
                     int d) {
  float bias = 0.5f;
  for (int r = blockIdx.x; r < n; r += gridDim.x) {
    for (int c = threadIdx.x; c < d; c += blockDim.x)
      out[r * d + c] = expf(in[r * d + c] / temp - logf(temp + bias)) *
                       (1.0f / sqrtf((float)d)) + SCALED(temp);
    bias += 1.0f;
  }
}

// CHECK:      __global__ void addr(float *out, float a, int n) {
// CHECK-NEXT:   float t = a;
// CHECK-NEXT:   float *p = &t;
// CHECK-NEXT:   const float sqrtf_hoisted = sqrtf(a);
// CHECK-NEXT:   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// CHECK-NEXT:        i += blockDim.x * gridDim.x) {
// CHECK-NEXT:     *p += 1.0f;
// CHECK-NEXT:     out[i] = expf(t) + sqrtf_hoisted + sqrtf_hoisted;
// CHECK-NEXT:   }
// CHECK-NEXT: }
__global__ void addr(float *out, float a, int n) {
  float t = a;
  float *p = &t;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    *p += 1.0f;
    out[i] = expf(t) + sqrtf(a) + sqrtf(a);
  }
}

// CHECK:      template <typename T>
// CHECK-NEXT: __global__ void poly(T *out, const T *x, float k, int n, int terms) {
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i < n) {
// CHECK-NEXT:     float acc = 0.0f;
// CHECK-NEXT:     const float powf_hoisted = powf(k, 0.5f);
// CHECK-NEXT:     for (int j = 0; j < terms; ++j)
// CHECK-NEXT:       acc += (float)x[i] * powf_hoisted / (j + 1);
// CHECK-NEXT:     out[i] = (T)acc;
// CHECK-NEXT:   }
// CHECK-NEXT: }
template <typename T>
__global__ void poly(T *out, const T *x, float k, int n, int terms) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float acc = 0.0f;
    for (int j = 0; j < terms; ++j)
      acc += (float)x[i] * powf(k, 0.5f) / (j + 1);
    out[i] = (T)acc;
  }
}
template __global__ void poly<__half>(__half *, const __half *, float, int,
                                      int);

// LIST:      hoist-invariant rows rows:L1: does not apply: 'expf(in[r * d + c] / temp - logf(temp + bias))' is not hoisted: 'in[r * d + c]' reads memory that may change
// LIST-NEXT: hoist-invariant rows rows:L1: does not apply: 'in[r * d + c] / temp' is not hoisted: 'in[r * d + c]' reads memory that may change
// LIST-NEXT: hoist-invariant rows rows:L1: applies: 'logf(temp + bias)' -> 'logf_hoisted', computed before rows:L1
// LIST-NEXT: hoist-invariant rows rows:L0: applies: '1.0f / sqrtf((float)d)' -> 'quot_hoisted', computed before rows:L0
// LIST-NEXT: hoist-invariant rows rows:L1: does not apply: not hoisted: inside the expansion of macro 'SCALED'
// LIST-NEXT: hoist-invariant addr addr:L0: does not apply: 'expf(t)' is not hoisted: 't' is modified in the loop or has its address taken
// LIST-NEXT: hoist-invariant addr addr:L0: applies: 'sqrtf(a)' -> 'sqrtf_hoisted', computed before addr:L0
// LIST-NEXT: hoist-invariant addr addr:L0: applies: 'sqrtf(a)' -> 'sqrtf_hoisted', computed before addr:L0 (same expression hoisted above)

// INNER:      for (int r = blockIdx.x; r < n; r += gridDim.x) {
// INNER-NEXT:   const float logf_hoisted = logf(temp + bias);
// INNER-NEXT:   const float quot_hoisted = 1.0f / sqrtf((float)d);

// The hoisted reciprocal square root is computed once, before the row loop's
// header (LLVM's LICM would do the same for the original: the rewrite makes
// it explicit in the source and keeps it there).
// PTX-LABEL: .entry _Z4rowsPfPKffii(
// PTX:       rsqrt.approx.f32
// PTX:       Loop Header
// PTX-NOT:   sqrt
// PTX:       ret;
