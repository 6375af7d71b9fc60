// y = a * x + y, grid-stride.
#include "common.cuh"
#include "vecops/vecops.h"

__global__ void scale_add(float *__restrict__ y, const float *__restrict__ x,
                          float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

void vecops_scale_add(float *y, const float *x, float a, int n,
                      cudaStream_t stream) {
  scale_add<<<vecops_grid(n, 1024), VECOPS_BLOCK, 0, stream>>>(y, x, a, n);
}
