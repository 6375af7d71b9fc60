// REQUIRES: cuda-headers, libdevice
// RUN: %astra-opt --emit-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %astra-opt --emit-ptx --gpu-arch=sm_80 %s | FileCheck %s --check-prefix=SM80

// CHECK: .target sm_90a
// CHECK: .visible .entry _Z4siluI6__halfEvPT_PKS1_i(
// CHECK: ex2.approx
// CHECK: .visible .entry _Z4siluI13__nv_bfloat16EvPT_PKS1_i(
// SM80: .target sm_80

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

template <typename T>
__global__ void silu(T *__restrict__ out, const T *__restrict__ in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float x = (float)in[i];
    out[i] = (T)(x / (1.0f + expf(-x)));
  }
}
template __global__ void silu<__half>(__half *, const __half *, int);
template __global__ void silu<__nv_bfloat16>(__nv_bfloat16 *,
                                             const __nv_bfloat16 *, int);

void launch(__half *o, const __half *i, int n) { silu<<<1, 256>>>(o, i, n); }
