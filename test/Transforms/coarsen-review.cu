// coarsen on kernels a review found rewritten wrongly, now refused: a tree
// whose first stride follows blockDim.x but is not its half (it halves every
// block of 32 threads and more, not the coarsened 16, whose tree then adds
// elements no thread wrote), and a file-scope tree array that a device
// function reads after the tree. `blockDim.x >> 1` is still coarsened.
// REQUIRES: cuda-headers
// RUN: not %astra-opt --apply=coarsen:kernel=round_up,extent=n %s 2>&1 | FileCheck %s --check-prefix=ROUND
// RUN: not %astra-opt --apply=coarsen:kernel=file_scope,extent=n %s 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: %astra-opt --apply=coarsen:kernel=shift,extent=n %s | FileCheck %s --check-prefix=SHIFT

#include <cuda_runtime.h>

__global__ void round_up(float *out, const float *x, int n) {
  __shared__ float acc[1024];
  const int r = blockIdx.x;
  acc[threadIdx.x] = x[r * n + threadIdx.x];
  __syncthreads();
  for (int s = (blockDim.x + 31) / 32 * 16; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      acc[threadIdx.x] += acc[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[r] = acc[0];
}
// ROUND: coarsen of round_up by 8: the tree's first stride `(blockDim.x + 31) / 32 * 16` is not blockDim.x / 2 (the coarsened tree must reduce its block whole)

__shared__ float g[1024];
__device__ float second() { return g[1]; }

__global__ void file_scope(float *out, const float *x, int n) {
  const int r = blockIdx.x;
  g[threadIdx.x] = x[r * n + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      g[threadIdx.x] += g[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[r] = g[0] - second();
}
// FILE: coarsen of file_scope by 8: 'g' is declared outside the kernel and used at line [[#@LINE-14]], which the check of reads after the tree does not follow

__global__ void shift(float *out, const float *x, int n) {
  __shared__ float acc[1024];
  const int r = blockIdx.x;
  acc[threadIdx.x] = x[r * n + threadIdx.x];
  __syncthreads();
  for (unsigned s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      acc[threadIdx.x] += acc[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[r] = acc[0];
}
// SHIFT: if (blockDim.x * 8 == static_cast<unsigned int>(n) && (n & (n - 1)) == 0) {
