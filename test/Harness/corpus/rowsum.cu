// Corpus original: out[r] = sum_j x[r, j]^2 with a shared-memory tree
// reduction over a block of 256 threads (one block per row).
__global__ void rowsum_sq(float *out, const float *x, int n) {
  __shared__ float partial[256];
  const float *row = x + (long)blockIdx.x * n;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    acc += row[j] * row[j];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}
