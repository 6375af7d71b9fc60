// Correct variant: each thread sums a contiguous chunk, and the block
// reduces in the opposite order: a different summation order, within the
// spec's tolerance.
__global__ void rowsum_sq(float *out, const float *x, int n) {
  __shared__ float partial[256];
  const float *row = x + (long)blockIdx.x * n;
  int per = (n + blockDim.x - 1) / blockDim.x;
  int lo = threadIdx.x * per, hi = min(n, lo + per);
  float acc = 0.0f;
  for (int j = hi - 1; j >= lo; --j)
    acc += row[j] * row[j];
  partial[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int k = blockDim.x - 1; k >= 0; --k)
      s += partial[k];
    out[blockIdx.x] = s;
  }
}
