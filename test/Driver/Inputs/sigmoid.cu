#include <cuda_runtime.h>

__global__ void sigmoid(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    out[i] = 1.0f / (1.0f + expf(-x));
  }
}
