// REQUIRES: cuda-headers
// A grid-stride loop over a flattened token x feature range (`idx / d`,
// `idx % d`), as gelu_tanh_and_mul: the plain form would pack only the store
// `out[idx]` and load per lane; the widened form packs the loads through the
// index arithmetic too (a pack stays in one row: d divides into packs, checked
// at run time), so it is taken. Under a launch with a thread per element the
// original runs (the guard's first test).
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=vectorize-loads %s -o %t.cu
// RUN: grep -v "^//" %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX

__global__ void mul_rows(float *out, const float *in, int rows, int d) {
  const long n = (long)rows * d;
  const long stride = (long)gridDim.x * blockDim.x;
  for (long idx = (long)blockIdx.x * blockDim.x + threadIdx.x; idx < n;
       idx += stride) {
    long token = idx / d;
    long i = idx % d;
    out[idx] = in[token * 2 * d + i] * in[token * 2 * d + d + i];
  }
}

// LIST: vectorize-loads mul_rows mul_rows:L0: applies: 16-byte accesses to 3 pointer offset(s), 4 elements per thread and step; {{.*}}checks that d divide(s) into pack

// CHECK:      if (stride < n && reinterpret_cast<size_t>(out) % 16 == 0 &&
// CHECK:      d % 4 == 0) {
// CHECK:      long token = idx / d;
// CHECK:      inVec0.u = *reinterpret_cast<const float4 *>(&in[token * 2 * d + i]);
// CHECK:      inVec1.u = *reinterpret_cast<const float4 *>(&in[token * 2 * d + d + i]);
// CHECK:      *reinterpret_cast<float4 *>(&out[idx]) = outVec.u;
// CHECK:      } else {

// PTX: ld.global.v4.{{b32|f32}}
// PTX: ld.global.v4.{{b32|f32}}
// PTX: st.global.v4.{{b32|f32}}
