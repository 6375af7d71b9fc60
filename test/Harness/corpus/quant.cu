// Corpus original: per-row symmetric int8 quantization (one block of 256
// threads per row): scale = max(max_j |x[r, j]|, 1e-10) / 127,
// q[r, j] = clamp(rint(x[r, j] / scale), -128, 127). The spec holds the
// int8 values to one step (atol 1) and the f32 scales to rtol 1e-6.
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
    q[(long)blockIdx.x * n + j] = (signed char)fminf(fmaxf(v, -128.0f), 127.0f);
  }
}
