// warp-reduce on two trees over one array with no refill between them: the
// second tree reduces what the first left (its partial results), which the
// rewritten first tree would not leave (only a[0]), so the first is refused
// and the second, after which only a[0] is read, applies. From a review of
// the same check in fold-blocks' row shuffles.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s | FileCheck %s

#include <cuda_runtime.h>

__global__ void two_trees(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] = fmaxf(a[threadIdx.x], a[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK: warp-reduce two_trees two_trees:L0: does not apply: line {{[0-9]+}} reads a[threadIdx.x] after a tree without refilling the array first
// CHECK: warp-reduce two_trees two_trees:L1: applies: max of 'a' (float)
