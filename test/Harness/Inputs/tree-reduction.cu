// A block-per-row sum with a power-of-two shared-memory tree reduction
// (dynamic shared memory): --emit-spec marks its block size B as not varied
// and a power of two.
__global__ void rowsum(float *out, const float *x, int d) {
  extern __shared__ float partial[];
  float s = 0;
  for (int i = threadIdx.x; i < d; i += blockDim.x) s += x[blockIdx.x * d + i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (unsigned s2 = blockDim.x / 2; s2 > 0; s2 >>= 1) {
    if (threadIdx.x < s2) partial[threadIdx.x] += partial[threadIdx.x + s2];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
