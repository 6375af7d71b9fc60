// warp-reduce on a tree that a loop runs again: the next run of the original
// reduces the partial results this run left, which the rewritten tree does
// not leave (only a[0] is the same). The tree applies only where the array is
// refilled (`a[tid] = ...;`) before it in the loop, or after it on the way to
// the next run.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s | FileCheck %s

#include <cuda_runtime.h>

// Filled once, reduced twice: the second sum is of the partial results.
__global__ void no_refill(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * n + threadIdx.x];
  for (int k = 0; k < 2; ++k) {
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s)
        a[threadIdx.x] += a[threadIdx.x + s];
      __syncthreads();
    }
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK: warp-reduce no_refill no_refill:L1: does not apply: the loop at line 15 runs the tree again with no refill of a[tid] between runs

// Refilled at the top of every run.
__global__ void refill_before(float *out, const float *x, int n) {
  __shared__ float a[1024];
  for (int k = 0; k < 4; ++k) {
    a[threadIdx.x] = x[(blockIdx.x * 4 + k) * n + threadIdx.x];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s)
        a[threadIdx.x] += a[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0)
      out[blockIdx.x * 4 + k] = a[0];
    __syncthreads();
  }
}
// CHECK: warp-reduce refill_before refill_before:L1: applies: sum of 'a' (float)

// Filled before the loop and refilled at the end of every run, on the way to
// the next.
__global__ void refill_after(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * 4 * n + threadIdx.x];
  for (int k = 0; k < 4; ++k) {
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s)
        a[threadIdx.x] += a[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0)
      out[blockIdx.x * 4 + k] = a[0];
    __syncthreads();
    if (k + 1 < 4) {
      a[threadIdx.x] = x[(blockIdx.x * 4 + k + 1) * n + threadIdx.x];
    }
  }
}
// The refill sits in an if: it need not run, so the tree is refused.
// CHECK: warp-reduce refill_after refill_after:L1: does not apply: the loop at line 51 runs the tree again

__global__ void refill_after_always(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * 4 * n + threadIdx.x];
  for (int k = 0; k < 4; ++k) {
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s)
        a[threadIdx.x] += a[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0)
      out[blockIdx.x * 4 + k] = a[0];
    __syncthreads();
    a[threadIdx.x] = x[(blockIdx.x * 4 + (k + 1) % 4) * n + threadIdx.x];
  }
}
// CHECK: warp-reduce refill_after_always refill_after_always:L1: applies: sum of 'a' (float)

// Refilled in the outer loop, run twice by an inner one.
__global__ void inner_loop(float *out, const float *x, int n) {
  __shared__ float a[1024];
  for (int k = 0; k < 2; ++k) {
    a[threadIdx.x] = x[(blockIdx.x * 2 + k) * n + threadIdx.x];
    for (int j = 0; j < 2; ++j) {
      __syncthreads();
      for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
          a[threadIdx.x] += a[threadIdx.x + s];
        __syncthreads();
      }
    }
    if (threadIdx.x == 0)
      out[blockIdx.x * 2 + k] = a[0];
    __syncthreads();
  }
}
// CHECK: warp-reduce inner_loop inner_loop:L2: does not apply: the loop at line 92 runs the tree again
