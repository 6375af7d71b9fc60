void grow(float **p) { cudaMalloc(p, 4); }

template <typename T_>
__global__ void silu_and_mul(T_* out, const T_* input, int d) {
  cudaStream_t s;
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[blockIdx.x * d + i] = input[blockIdx.x * 2 * d + i];
}
