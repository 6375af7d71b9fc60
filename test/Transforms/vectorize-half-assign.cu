// REQUIRES: cuda-headers
// A store through a class type's operator= (`__half`, `__nv_bfloat16` in a
// kernel that is not a template) at an index a body-local variable holds: the
// widened form must store the pack. It once took `out[off] = ...` for a read
// (an operator call, not a built-in assignment), loaded `out` as a pack,
// computed the lanes into it and never stored it: found on an H100, where the
// harness refused the result (test/Harness/any-block-gpu.test).
// RUN: %astra-opt --apply=vectorize-loads:kernel=scale_rows %s -o %t.cu
// RUN: grep -v "^//" %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX

#include <cuda_fp16.h>
#include <stdint.h>

__global__ void scale_rows(__half *out, const __half *a, int d, int ld) {
  const int row = blockIdx.x;
  const int i = blockIdx.y * blockDim.x + threadIdx.x;
  if (i < d) {
    const int64_t off = (int64_t)row * ld + i;
    out[off] = __float2half(__half2float(a[off]) * 2.0f);
  }
}

// CHECK:      VecF16 outVec;
// CHECK-NOT:  outVec.u = *reinterpret_cast<const uint4 *>(&out[off]);
// CHECK:      outVec.v[lane] = __float2half(__half2float(aVec.v[lane]) * 2.0f);
// CHECK:      *reinterpret_cast<uint4 *>(&out[off]) = outVec.u;

// PTX: ld.global.v4.{{b32|u32}}
// PTX: st.global.v4.{{b32|u32}}
