// REQUIRES: cuda-headers
// Strided rows: `in[t * row_stride + c * col_stride]` with runtime strides.
// The row stride is covered by the alignment check of each row's start, the
// column stride is versioned on `col_stride == 1`; bf16 with 8-byte accesses.
// RUN: %astra-opt --apply=vectorize-loads:width=8 %s -o %t.cu
// RUN: grep -v "^//" %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX

#include <cuda_bf16.h>

__global__ void copy_rows(__nv_bfloat16 *out, const __nv_bfloat16 *in,
                          long row_stride, long col_stride, int d) {
  const long t = blockIdx.x;
  for (int c = threadIdx.x; c < d; c += blockDim.x)
    out[t * d + c] = in[t * row_stride + c * col_stride];
}

// CHECK:      if (reinterpret_cast<size_t>(out + t * d) % 8 == 0 &&
// CHECK-NEXT:     reinterpret_cast<size_t>(in + t * row_stride) % 8 == 0 &&
// CHECK-NEXT:     col_stride == 1) {
// CHECK:        constexpr int VecW = 4;
// CHECK-NEXT:   union VecBF16 {
// CHECK-NEXT:     uint2 u;
// CHECK-NEXT:     __nv_bfloat16 v[VecW];
// CHECK-NEXT:   };
// CHECK:          inVec.u = *reinterpret_cast<const uint2 *>(in + t * row_stride + vecBase);
// CHECK:            outVec.v[lane] = inVec.v[lane];
// CHECK:          *reinterpret_cast<uint2 *>(out + t * d + vecBase) = outVec.u;
// The tail keeps the original body: with col_stride == 1 it is the same.
// CHECK:        for (; c < d; c += blockDim.x) {
// CHECK-NEXT:     out[t * d + c] = in[t * row_stride + c * col_stride];
// CHECK:      } else {
// CHECK-NEXT:   for (int c = threadIdx.x; c < d; c += blockDim.x)
// CHECK-NEXT:     out[t * d + c] = in[t * row_stride + c * col_stride];
// CHECK-NEXT: }

// PTX: ld.global.{{v2.b32|b64}}
// PTX: st.global.{{v2.b32|b64}}
