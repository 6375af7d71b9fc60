// Wrong: every third int8 value is two steps off, beyond the spec's atol 1.
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
    scales[blockIdx.x] = scale;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float v = rintf(row[j] / scale);
    if (j % 3 == 0 && v < 126.0f)
      v += 2.0f;
    q[(long)blockIdx.x * n + j] = (signed char)fminf(fmaxf(v, -128.0f), 127.0f);
  }
}
