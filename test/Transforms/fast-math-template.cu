// fast-math in a block-per-row kernel templated on the element type, rows
// `stride` elements apart: the pattern is edited once and both explicit
// instantiations compile. `ops=` picks a subset; loop= restricts to one loop.
// REQUIRES: cuda-headers, libdevice
// RUN: %astra-opt --apply=fast-math %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --apply=fast-math:ops=exp %s | grep -v '^//' | FileCheck %s --check-prefix=EXP
// RUN: %astra-opt --apply=fast-math:loop=softmax_row:L1 %s | grep -v '^//' | FileCheck %s --check-prefix=LOOP

#include <cuda_fp16.h>
#include <cuda_bf16.h>

// CHECK:      template <typename T>
// CHECK-NEXT: __global__ void softmax_row(T *out, const T *in, int cols, int stride) {
// CHECK-NEXT:   const T *row = in + blockIdx.x * stride;
// CHECK-NEXT:   float sum = 0.0f;
// CHECK-NEXT:   for (int c = threadIdx.x; c < cols; c += blockDim.x)
// CHECK-NEXT:     sum += __expf((float)row[c]);
// CHECK-NEXT:   for (int c = threadIdx.x; c < cols; c += blockDim.x)
// CHECK-NEXT:     out[blockIdx.x * stride + c] = (T)__fdividef(__expf((float)row[c]), sum);
// CHECK-NEXT: }
template <typename T>
__global__ void softmax_row(T *out, const T *in, int cols, int stride) {
  const T *row = in + blockIdx.x * stride;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    sum += expf((float)row[c]);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[blockIdx.x * stride + c] = (T)(expf((float)row[c]) / sum);
}
// CHECK: template __global__ void softmax_row<__half>(__half *, const __half *, int, int);
template __global__ void softmax_row<__half>(__half *, const __half *, int, int);
template __global__ void softmax_row<__nv_bfloat16>(__nv_bfloat16 *,
                                                    const __nv_bfloat16 *, int,
                                                    int);

// EXP:      sum += __expf((float)row[c]);
// EXP:      out[blockIdx.x * stride + c] = (T)(__expf((float)row[c]) / sum);

// LOOP:      sum += expf((float)row[c]);
// LOOP:      out[blockIdx.x * stride + c] = (T)__fdividef(__expf((float)row[c]), sum);

// PTX-LABEL: .entry _Z11softmax_rowI6__halfEvPT_PKS1_ii(
// PTX:       ex2.approx
// PTX:       div.approx.f32
// PTX-LABEL: .entry _Z11softmax_rowI13__nv_bfloat16EvPT_PKS1_ii(
// PTX:       div.approx.f32
