// REQUIRES: cuda-headers, libdevice
// rmsnorm templated over T with __half, __nv_bfloat16 and float
// instantiations: a reduction loop (sum of squares, whose per-thread sums
// go to a warp butterfly: vectorized when blockDim.x is 32) and a write
// loop. The vector width is computed from sizeof(T), so one pattern serves all three.
// RUN: %astra-opt --apply=vectorize-loads %s -o %t.cu
// RUN: grep -v "^//" %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// One loop only, by id; the shuffle loop L1 does not apply:
// RUN: %astra-opt --apply=vectorize-loads:loop=rmsnorm:L2 %s | grep -v "^//" | FileCheck %s --check-prefix=L2
// RUN: not %astra-opt --apply=vectorize-loads:loop=rmsnorm:L1 %s 2>&1 | FileCheck %s --check-prefix=L1

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

template <typename T>
__global__ void rmsnorm(T *__restrict__ out, const T *__restrict__ x,
                        const T *__restrict__ weight, float eps, int d) {
  __shared__ float s_inv;
  const int row = blockIdx.x;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = (float)x[row * d + i];
    ss += v * v;
  }
  for (int o = 16; o > 0; o /= 2)
    ss += __shfl_xor_sync(0xffffffff, ss, o);
  if (threadIdx.x == 0)
    s_inv = rsqrtf(ss / d + eps);
  __syncthreads();
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[row * d + i] = (T)((float)x[row * d + i] * s_inv * (float)weight[i]);
}

template __global__ void rmsnorm<__half>(__half *, const __half *,
                                         const __half *, float, int);
template __global__ void rmsnorm<__nv_bfloat16>(__nv_bfloat16 *,
                                                const __nv_bfloat16 *,
                                                const __nv_bfloat16 *, float,
                                                int);
template __global__ void rmsnorm<float>(float *, const float *, const float *,
                                        float, int);

// The reduction loop: its per-thread ss goes to a full xor butterfly, which
// combines the block's values only when the block is one warp
// (PerThreadValues.cpp): that is in its guard.
// CHECK:      float ss = 0.0f;
// CHECK-NEXT: if (reinterpret_cast<size_t>(x + row * d) % 16 == 0 && blockDim.x == 32) {
// CHECK:        for (int lane = 0; lane < VecW; ++lane) {
// CHECK-NEXT:     const float v = (float)xVec.v[lane];
// CHECK-NEXT:     ss += v * v;
// CHECK:      } else {
// CHECK-NEXT:   for (int i = threadIdx.x; i < d; i += blockDim.x) {
// CHECK-NEXT:     const float v = (float)x[row * d + i];
// CHECK-NEXT:     ss += v * v;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// The shuffle loop (L1) is not vectorized: it has no global access.
// CHECK-NEXT: for (int o = 16; o > 0; o /= 2)
// CHECK-NEXT:   ss += __shfl_xor_sync(0xffffffff, ss, o);
// The write loop: x, weight loaded, out stored (not loaded).
// CHECK:      if (reinterpret_cast<size_t>(out + row * d) % 16 == 0 &&
// CHECK-NEXT:     reinterpret_cast<size_t>(x + row * d) % 16 == 0 &&
// CHECK-NEXT:     reinterpret_cast<size_t>(weight) % 16 == 0) {
// CHECK:          VecT outVec;
// CHECK-NEXT:     VecT xVec;
// CHECK-NEXT:     VecT weightVec;
// CHECK-NEXT:     xVec.u = __ldg(reinterpret_cast<const uint4 *>(x + row * d + vecBase));
// CHECK-NEXT:     weightVec.u = __ldg(reinterpret_cast<const uint4 *>(weight + vecBase));
// CHECK-NEXT: {{ *}}#pragma unroll
// CHECK-NEXT:     for (int lane = 0; lane < VecW; ++lane) {
// CHECK-NEXT:       outVec.v[lane] = (T)((float)xVec.v[lane] * s_inv * (float)weightVec.v[lane]);
// CHECK-NEXT:     }
// CHECK-NEXT:     *reinterpret_cast<uint4 *>(out + row * d + vecBase) = outVec.u;
// CHECK-NEXT:   }
// CHECK:      } else {
// CHECK-NEXT:   for (int i = threadIdx.x; i < d; i += blockDim.x)
// CHECK-NEXT:     out[row * d + i] = (T)((float)x[row * d + i] * s_inv * (float)weight[i]);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK:      template __global__ void rmsnorm<__half>(__half *, const __half *,

// Every instantiation gets 16-byte loads and stores.
// PTX-LABEL: .entry _Z7rmsnormI6__halfEvPT_PKS1_S4_fi(
// PTX:         ld.global{{(\.nc)?}}.v4.{{[bu]}}32
// PTX:         st.global.v4.{{[bu]}}32
// PTX-LABEL: .entry _Z7rmsnormI13__nv_bfloat16EvPT_PKS1_S4_fi(
// PTX:         ld.global{{(\.nc)?}}.v4.{{[bu]}}32
// PTX:         st.global.v4.{{[bu]}}32
// PTX-LABEL: .entry _Z7rmsnormIfEvPT_PKS0_S3_fi(
// PTX:         ld.global{{(\.nc)?}}.v4.{{[bu]}}32
// PTX:         st.global.v4.{{[bu]}}32

// L2:      float ss = 0.0f;
// L2-NEXT: for (int i = threadIdx.x; i < d; i += blockDim.x) {
// L2:      if (reinterpret_cast<size_t>(out + row * d) % 16 == 0 &&

// L1: error: rewrite 'vectorize-loads' does not apply to loop rmsnorm:L1
// L1-NEXT: vectorize-rmsnorm-template.cu:28:3: note: loop rmsnorm:L1: the loop condition is not `o < n`
