// REQUIRES: cuda-headers, libdevice
// Block-per-row f16 kernel reading the two halves of a row (silu_and_mul):
// two 16-byte loads of `input` at two offsets, one 16-byte store.
// RUN: %astra-opt --apply=vectorize-loads %s -o %t.cu
// RUN: grep -v "^//" %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

#include <cuda_fp16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float silu(float x) { return x / (1.0f + expf(-x)); }

__global__ void silu_and_mul(__half *__restrict__ out,
                             const __half *__restrict__ input, int d) {
  const int64_t token = blockIdx.x;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float x = __half2float(input[token * 2 * d + i]);
    const float y = __half2float(input[token * 2 * d + d + i]);
    out[token * d + i] = __float2half(silu(x) * y);
  }
}

void launch(__half *out, const __half *in, int tokens, int d) {
  silu_and_mul<<<tokens, 256>>>(out, in, d);
}

// CHECK:      const int64_t token = blockIdx.x;
// CHECK-NEXT: if (reinterpret_cast<size_t>(input + token * 2 * d) % 16 == 0 &&
// CHECK-NEXT:     reinterpret_cast<size_t>(input + (token * 2 * d + d)) % 16 == 0 &&
// CHECK-NEXT:     reinterpret_cast<size_t>(out + token * d) % 16 == 0) {
// CHECK:        constexpr int VecW = 8;
// CHECK-NEXT:   union VecF16 {
// CHECK-NEXT:     uint4 u;
// CHECK-NEXT:     __half v[VecW];
// CHECK-NEXT:   };
// CHECK-NEXT:   for (int vecIdx = threadIdx.x; vecIdx < d / VecW; vecIdx += blockDim.x) {
// CHECK-NEXT:     const int vecBase = vecIdx * VecW;
// CHECK-NEXT:     VecF16 inputVec0;
// CHECK-NEXT:     VecF16 inputVec1;
// CHECK-NEXT:     VecF16 outVec;
// CHECK-NEXT:     inputVec0.u = __ldg(reinterpret_cast<const uint4 *>(input + token * 2 * d + vecBase));
// CHECK-NEXT:     inputVec1.u = __ldg(reinterpret_cast<const uint4 *>(input + (token * 2 * d + d) + vecBase));
// CHECK-NEXT: {{ *}}#pragma unroll
// CHECK-NEXT:     for (int lane = 0; lane < VecW; ++lane) {
// CHECK-NEXT:       const float x = __half2float(inputVec0.v[lane]);
// CHECK-NEXT:       const float y = __half2float(inputVec1.v[lane]);
// CHECK-NEXT:       outVec.v[lane] = __float2half(silu(x) * y);
// CHECK-NEXT:     }
// CHECK-NEXT:     *reinterpret_cast<uint4 *>(out + token * d + vecBase) = outVec.u;
// CHECK-NEXT:   }
// The tail: elements [d / 8 * 8, d), by the threads that own them originally.
// CHECK:        const auto vecEnd = d / VecW * VecW;
// CHECK-NEXT:   int i = threadIdx.x;
// CHECK-NEXT:   if (i < vecEnd)
// CHECK-NEXT:     i += ((vecEnd - i - 1) / blockDim.x + 1) * blockDim.x;
// CHECK-NEXT:   for (; i < d; i += blockDim.x) {
// CHECK-NEXT:     const float x = __half2float(input[token * 2 * d + i]);
// CHECK-NEXT:     const float y = __half2float(input[token * 2 * d + d + i]);
// CHECK-NEXT:     out[token * d + i] = __float2half(silu(x) * y);
// CHECK-NEXT:   }
// The fallback is the original loop.
// CHECK-NEXT: } else {
// CHECK-NEXT:   for (int i = threadIdx.x; i < d; i += blockDim.x) {
// CHECK-NEXT:     const float x = __half2float(input[token * 2 * d + i]);
// CHECK-NEXT:     const float y = __half2float(input[token * 2 * d + d + i]);
// CHECK-NEXT:     out[token * d + i] = __float2half(silu(x) * y);
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: }
// Host code is untouched.
// CHECK:      void launch(__half *out, const __half *in, int tokens, int d) {
// CHECK-NEXT:   silu_and_mul<<<tokens, 256>>>(out, in, d);

// PTX-LABEL: .entry _Z12silu_and_mulP6__halfPKS_i(
// PTX-COUNT-2: ld.global{{(\.nc)?}}.v4.{{[bu]}}32
// PTX:         st.global.v4.{{[bu]}}32
