// A __shared__ variable of a class type with a constructor: nvcc warns
// (dynamic initialization is not supported), Clang rejects it. It lies in a
// device helper no kernel calls, so the kernel is intact.
#include <cuda_runtime.h>

struct Counter {
  int n;
  __device__ Counter() : n(0) {}
};

__device__ int blocks_seen() {
  __shared__ Counter c;
  return c.n;
}

__global__ void softplus(float *__restrict__ y, const float *__restrict__ x,
                         int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = logf(1.f + expf(x[i]));
}
