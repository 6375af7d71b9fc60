// read-only-cache on a parameter that initialises a local pointer to
// non-const (`float *row = inp + i * C;`, llm.c's softmax_forward_kernel1,
// corpus failure class 2 in docs/benchmarks.md): the local keeps the
// parameter (the const alias cannot initialise it), its loads still go
// through __ldg, and the output compiles. A local pointer to const takes the
// alias.
// REQUIRES: cuda-headers, libdevice
// RUN: %astra-opt --apply=read-only-cache:kernel=k,assume-noalias=1 %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu -o - | FileCheck %s --check-prefix=PTX

#include <cuda_runtime.h>

// CHECK:      __global__ void k(float *out, float *inp, int n, int C) {
// CHECK-NEXT:   const float *__restrict__ inp_ro = inp;
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i < n) {
// CHECK-NEXT:     float *row = inp + i * C;
// CHECK-NEXT:     const float *crow = inp_ro + i * C;
// CHECK-NEXT:     float s = 0.0f;
// CHECK-NEXT:     for (int j = 0; j < C; j++)
// CHECK-NEXT:       s += __ldg(&row[j]) * __ldg(&crow[j]);
// CHECK-NEXT:     out[i] = s;
__global__ void k(float *out, float *inp, int n, int C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float *row = inp + i * C;
    const float *crow = inp + i * C;
    float s = 0.0f;
    for (int j = 0; j < C; j++)
      s += row[j] * crow[j];
    out[i] = s;
  }
}

// PTX: .entry _Z1kPfS_ii
// PTX: ld.global.nc.b32
