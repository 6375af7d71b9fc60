#include "proj/activation.h"

__global__ void gelu_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = PROJ_SCALE * proj::gelu(x[i]);
}
