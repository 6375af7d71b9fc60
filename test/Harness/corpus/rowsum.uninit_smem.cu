// Wrong: reduces over a 512-slot shared array although only the first 256
// slots (one per thread) are ever written.
__global__ void rowsum_sq(float *out, const float *x, int n) {
  __shared__ float partial[512];
  const float *row = x + (long)blockIdx.x * n;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    acc += row[j] * row[j];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 256; s > 0; s /= 2) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}
