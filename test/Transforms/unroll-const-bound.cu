// unroll mode=manual on a loop whose bound reads a const scalar that a type
// inside the loop also names (`T v[W]` in a union, as vectorize-loads emits
// it): the const never changes, so the bound is invariant and the loop is
// unrolled, also where its address is taken. The same loop with a plain int
// whose address escapes stays refused.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=unroll:mode=manual,factor=2,loop=packed:L0 %s | grep -v '^//' | FileCheck %s
// RUN: %astra-opt --apply=unroll:mode=manual,factor=2,loop=packed:L0 %s -o %t.cu
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX

#include <cuda_fp16.h>

// LIST: unroll:mode=manual packed packed:L0: applies: manual unroll by 4
// LIST: unroll:mode=manual addressed addressed:L0: applies: manual unroll by 4
// LIST: unroll:mode=manual escaped escaped:L0: does not apply: the bound may change in the loop: 'w' is modified in the loop or has its address taken

// CHECK:      const int vecIdx_step = blockDim.x;
// CHECK-NEXT: for (; vecIdx + vecIdx_step < (n / W); vecIdx += 2 * vecIdx_step) {
// CHECK:        p.u = *reinterpret_cast<const uint4 *>(x + (vecIdx + vecIdx_step) * W);
// CHECK:      for (; vecIdx < n / W; vecIdx += blockDim.x) {
// PTX: .entry _Z6packedI6__halfEvPfPKT_i
template <typename T>
__global__ void packed(float *out, const T *x, int n) {
  constexpr int W = 16 / sizeof(T);
  union Pack {
    uint4 u;
    T v[W];
  };
  float acc = 0.0f;
  for (int vecIdx = threadIdx.x; vecIdx < n / W; vecIdx += blockDim.x) {
    Pack p;
    p.u = *reinterpret_cast<const uint4 *>(x + vecIdx * W);
    T lanes[W];
    for (int l = 0; l < W; ++l)
      lanes[l] = p.v[l];
    acc += static_cast<float>(lanes[0]);
  }
  out[threadIdx.x] = acc;
}
template __global__ void packed<__half>(float *, const __half *, int);

__global__ void addressed(float *out, const float *x, int n) {
  const int w = 4;
  const int *pw = &w;
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n / w; i += blockDim.x)
    acc += x[i] * *pw;
  out[threadIdx.x] = acc;
}

__device__ void touch(int *p);

__global__ void escaped(float *out, const float *x, int n) {
  int w = 4;
  touch(&w);
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n / w; i += blockDim.x)
    acc += x[i];
  out[threadIdx.x] = acc;
}
