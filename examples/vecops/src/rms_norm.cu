// RMS normalisation of each row, one row per block.
#include "common.cuh"
#include "vecops/vecops.h"

__global__ void rms_norm(float *__restrict__ out, const float *__restrict__ in,
                         const float *__restrict__ w, float eps, int d) {
  __shared__ float partial[VECOPS_BLOCK];
  const float *row = in + (size_t)blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    sum += row[i] * row[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  float scale = rsqrtf(partial[0] / d + eps);
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[(size_t)blockIdx.x * d + i] = row[i] * scale * w[i];
}

void vecops_rms_norm(float *out, const float *in, const float *w, float eps,
                     int T, int d, cudaStream_t stream) {
  rms_norm<<<T, VECOPS_BLOCK, 0, stream>>>(out, in, w, eps, d);
}
