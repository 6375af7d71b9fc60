// Wrong variant: the warp-shuffle reduction of blocksum.warp_shuffle.cu, but
// the first warp reduces one warp partial too few (`lane < warps - 1`): the
// last warp's sum is lost (with one warp, everything is).
__global__ void blocksum_sq(float *out, const float *x, int n) {
  extern __shared__ float partial[];
  const float *row = x + (long)blockIdx.x * n;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    acc += row[j] * row[j];
  for (int o = 16; o > 0; o >>= 1)
    acc += __shfl_xor_sync(0xffffffffu, acc, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warps = blockDim.x / 32;
  if (lane == 0)
    partial[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    float v = lane < warps - 1 ? partial[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0)
      out[blockIdx.x] = v;
  }
}
