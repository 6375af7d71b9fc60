// Correct variant (the warp-reduce rewrite): each warp reduces its threads
// with __shfl_xor_sync, lane 0 of each warp stores the warp's partial, and
// the first warp reduces the partials. Another summation order, within the
// spec's tolerance, on every block size of the spec's domain (powers of two
// from 32 to 1024: whole warps, at most 32 of them).
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
    float v = lane < warps ? partial[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0)
      out[blockIdx.x] = v;
  }
}
