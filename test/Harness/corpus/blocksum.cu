// Corpus original: out[r] = sum_j x[r, j]^2, one block per row, the block
// size B a shape variable (dynamic shared memory, 4*B bytes). The tree
// reduction halves blockDim.x: it is defined for power-of-two blocks only
// (on B = 3 it drops partial[2]); the spec's "vars" says so.
__global__ void blocksum_sq(float *out, const float *x, int n) {
  extern __shared__ float partial[];
  const float *row = x + (long)blockIdx.x * n;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    acc += row[j] * row[j];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}
