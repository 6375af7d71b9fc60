// register-cache and a row used outside the chain's loops (RegisterCacheChecks.cpp):
// reads of a row of const elements the chain does not store are allowed (which
// thread reads which element there does not matter); a row that is not const,
// a conversion that drops the const, a call that takes the row, or a row the
// chain stores are refused.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | grep " register-cache .*:L0:" | FileCheck %s
// RUN: %astra-opt --apply=register-cache:kernel=const_after %s | grep -v '^//' | FileCheck %s --check-prefix=OK

#include <cuda_fp16.h>
#include <cuda_runtime.h>

__device__ float peek(const float *p, int i);

// Template for every kernel: a two-pass row (sum, then scale) and a third
// loop after the chain.
__global__ void const_after(float *out, float *last, const __half *in,
                            int d) {
  __shared__ float red[1024];
  const __half *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += __half2float(x[i]);
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float t = red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = __half2float(x[i]) * t;
  }
  if (reinterpret_cast<size_t>(x) % 16 == 0 && threadIdx.x == 0)
    last[blockIdx.x] = __half2float(x[d - 1]) + __half2float(*(x + 1));
}
// CHECK-DAG: register-cache const_after const_after:L0: applies:
// OK: if (rcFits) {
// OK: if (reinterpret_cast<size_t>(x) % 16 == 0 && threadIdx.x == 0)
// OK-NEXT: last[blockIdx.x] = __half2float(x[d - 1]) + __half2float(*(x + 1));

__global__ void not_const(float *out, float *in, int d) {
  __shared__ float red[1024];
  float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float t = red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
  if (threadIdx.x == 0)
    y[0] += x[d - 1];
}
// CHECK-DAG: register-cache not_const not_const:L0: does not apply: line [[#]]:13 uses 'x' outside the loops

__global__ void cast_away(float *out, const float *in, int d) {
  __shared__ float red[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float t = red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
  if (threadIdx.x == 0)
    ((float *)x)[d - 1] = t;
}
// CHECK-DAG: register-cache cast_away cast_away:L0: does not apply: line [[#]]:15 uses 'x' outside the loops

__global__ void passed(float *out, const float *in, int d) {
  __shared__ float red[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float t = red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
  if (threadIdx.x == 0)
    y[0] += peek(x, d - 1);
}
// CHECK-DAG: register-cache passed passed:L0: does not apply: line [[#]]:18 uses 'x' outside the loops

// The row the chain stores, read after it.
__global__ void stored_row(float *out, const float *in, int d) {
  __shared__ float red[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float t = red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
  const float *z = y;
  if (threadIdx.x == 0)
    red[1] = z[threadIdx.x];
}
// CHECK-DAG: register-cache stored_row stored_row:L0: does not apply: line [[#]]:20 uses 'y' outside the loops
