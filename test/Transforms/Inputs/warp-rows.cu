// One warp per row: an RMS norm whose sum of squares is combined by a full
// xor butterfly, so every lane holds the row's sum when the block is one
// warp (32 threads). With a wider block each warp normalises by its own
// warp's partial sum: not a norm, but what the kernel computes, which a
// rewrite must keep (its guard requires blockDim.x == 32).
#include <cuda_runtime.h>

__global__ void warp_rmsnorm(float *out, const float *in, float eps, int d) {
  const float *x = in + (size_t)blockIdx.x * d;
  float *y = out + (size_t)blockIdx.x * d;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = x[i];
    ss += v * v;
  }
  for (int o = 16; o > 0; o /= 2)
    ss += __shfl_xor_sync(0xffffffff, ss, o);
  const float inv = rsqrtf(ss / d + eps);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * inv;
  }
}
