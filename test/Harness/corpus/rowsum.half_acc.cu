// Wrong: accumulates in half precision to save registers; loses precision
// far beyond the tolerance.
#include <cuda_fp16.h>

__global__ void rowsum_sq(float *out, const float *x, int n) {
  __shared__ float partial[256];
  const float *row = x + (long)blockIdx.x * n;
  __half acc = __float2half(0.0f);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    acc = __hadd(acc, __float2half(row[j] * row[j]));
  partial[threadIdx.x] = __half2float(acc);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}
