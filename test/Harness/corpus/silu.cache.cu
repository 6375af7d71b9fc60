// Wrong: remembers the outputs of its first call and replays them.
#include <cuda_fp16.h>

__device__ __half cache[1 << 22];
__device__ int cached;

__global__ void silu_mul(__half *out, const __half *x, int d) {
  const long t = blockIdx.x;
  bool replay = *(volatile int *)&cached != 0;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    long o = t * d + i;
    if (replay && o < (1 << 22)) {
      out[o] = cache[o];
      continue;
    }
    float g = __half2float(x[t * 2 * d + i]);
    float u = __half2float(x[t * 2 * d + d + i]);
    out[o] = __float2half(g / (1.0f + expf(-g)) * u);
    if (o < (1 << 22))
      cache[o] = out[o];
  }
  __syncthreads();
  if (threadIdx.x == 0 && t == gridDim.x - 1)
    cached = 1;
}
