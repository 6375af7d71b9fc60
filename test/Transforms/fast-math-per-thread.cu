// fast-math in a one-element-per-thread kernel with a bounds check:
// rsqrtf, __frcp_rn, __sincosf, __powf; refusals for doubles, constants and
// macros. Only the rewritten lines change.
// REQUIRES: cuda-headers, libdevice
// RUN: %astra-opt --apply=fast-math %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %s | FileCheck %s --check-prefix=ORIG
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST

#include <cuda_runtime.h>
#define HALF(v) ((v) / 2.0f)

// CHECK:      __global__ void norm(float *out, const float *in, double *d, int n) {
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i < n) {
// CHECK-NEXT:     float v = in[i];
// CHECK-NEXT:     out[i] = v * rsqrtf(v * v + 1e-6f) + HALF(v);
// CHECK-NEXT:     d[i] = exp(d[i]) / d[i];
// CHECK-NEXT:     float s, c;
// CHECK-NEXT:     __sincosf(v, &s, &c);
// CHECK-NEXT:     out[i] += __frcp_rn(s + c) + __powf(v, 2.5f) + 1.0f / 3.0f;
// CHECK-NEXT:   }
// CHECK-NEXT: }
__global__ void norm(float *out, const float *in, double *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    out[i] = v * (1.0f / sqrtf(v * v + 1e-6f)) + HALF(v);
    d[i] = exp(d[i]) / d[i];
    float s, c;
    sincosf(v, &s, &c);
    out[i] += 1 / (s + c) + powf(v, 2.5f) + 1.0f / 3.0f;
  }
}

// LIST: per-thread.cu:29:19: fast-math norm: applies: 1/sqrtf(x) -> rsqrtf(x)
// LIST: per-thread.cu:29:50: fast-math norm: does not apply: inside the expansion of macro 'HALF'
// LIST: per-thread.cu:30:12: fast-math norm: does not apply: double-precision division: fast-math intrinsics are float-only
// LIST: per-thread.cu:30:12: fast-math norm: does not apply: double-precision 'exp': __expf is float-only, fast-math does not change doubles
// LIST: per-thread.cu:32:5: fast-math norm: applies: 'sincosf' -> '__sincosf'
// LIST: per-thread.cu:33:15: fast-math norm: applies: 1/x -> __frcp_rn(x)
// LIST: per-thread.cu:33:29: fast-math norm: applies: 'powf' -> '__powf'
// LIST: per-thread.cu:33:45: fast-math norm: does not apply: constant division, folded at compile time

// ORIG-LABEL: .entry _Z4normPfPKfPdi(
// ORIG-NOT:   sin.approx
// ORIG:       ret;
// PTX-LABEL: .entry _Z4normPfPKfPdi(
// PTX-DAG:   rsqrt.approx.f32
// PTX-DAG:   sin.approx.f32
// PTX-DAG:   cos.approx.f32
// PTX-DAG:   rcp.rn.f32
// PTX-DAG:   lg2.approx.f32
// PTX:       ret;
