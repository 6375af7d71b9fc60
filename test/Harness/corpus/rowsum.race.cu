// Wrong: the tree reduction lost its __syncthreads(): warps read partial
// sums other warps have not written yet.
__global__ void rowsum_sq(float *out, const float *x, int n) {
  __shared__ float partial[256];
  const float *row = x + (long)blockIdx.x * n;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    acc += row[j] * row[j];
  partial[threadIdx.x] = acc;
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}
