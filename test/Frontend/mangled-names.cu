// The mangled names in the model are the .entry names in the PTX.
// REQUIRES: cuda-headers, libdevice
// RUN: %astra-opt --print-kernel-model %s -o %t.json
// RUN: %astra-opt --emit-ptx %s -o %t.ptx
// RUN: cat %t.json %t.ptx | FileCheck %s

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

namespace act {
template <typename T>
__global__ void silu(T *__restrict__ out, const T *__restrict__ in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float x = (float)in[i];
    out[i] = (T)(x / (1.0f + expf(-x)));
  }
}
template __global__ void silu<__half>(__half *, const __half *, int);
template __global__ void silu(__nv_bfloat16 *, const __nv_bfloat16 *, int);
} // namespace act

extern "C" __global__ void scale(float *x, float a, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}

__global__ void add(float *y, const float *x, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += x[i];
}

void launch(float *y, const float *x, unsigned n, float *f) {
  add<<<(n + 255) / 256, 256>>>(y, x, n);
  act::silu<<<1, 256>>>(f, x, (int)n);
}

// CHECK: "explicit": true
// CHECK: "mangled_name": "[[HALF:_ZN3act4siluI6__halfEEvPT_PKS2_i]]"
// CHECK: "name": "silu<__half>"
// Deduced template arguments are printed.
// CHECK: "explicit": true
// CHECK: "mangled_name": "[[BF16:_ZN3act4siluI13__nv_bfloat16EEvPT_PKS2_i]]"
// CHECK: "name": "silu<__nv_bfloat16>"
// The launch in `launch` instantiates silu<float>.
// CHECK: "explicit": false
// CHECK: "mangled_name": "[[FLOAT:_ZN3act4siluIfEEvPT_PKS1_i]]"
// CHECK: "name": "silu<float>"
// CHECK: "qualifier": "act::"
// CHECK: "mangled_name": "[[SCALE:scale]]"
// CHECK: "mangled_name": "[[ADD:_Z3addPfPKfj]]"
// CHECK-DAG: .entry [[HALF]](
// CHECK-DAG: .entry [[BF16]](
// CHECK-DAG: .entry [[FLOAT]](
// CHECK-DAG: .entry [[SCALE]](
// CHECK-DAG: .entry [[ADD]](
