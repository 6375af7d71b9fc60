// Wrong: stores the scales rounded to half precision (relative error up to
// 2^-11), beyond the scales' own rtol 1e-6; the int8 values are exact.
#include <cuda_fp16.h>

__global__ void quant(signed char *q, float *scales, const float *x, int n) {
  __shared__ float partial[256];
  const float *row = x + (long)blockIdx.x * n;
  float m = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m = fmaxf(m, fabsf(row[j]));
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  float scale = fmaxf(partial[0], 1e-10f) / 127.0f;
  if (threadIdx.x == 0)
    scales[blockIdx.x] = __half2float(__float2half(scale));
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float v = rintf(row[j] / scale);
    q[(long)blockIdx.x * n + j] = (signed char)fminf(fmaxf(v, -128.0f), 127.0f);
  }
}
