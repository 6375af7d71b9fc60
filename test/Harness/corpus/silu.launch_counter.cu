// Wrong: counts the blocks it has run in a __device__ variable; past
// SKIP_AFTER blocks (over all launches), odd blocks return at once. Exact on
// the correctness cases, which come first; the outputs of earlier launches
// would hide the skipped rows if the timed launches were not checked. A
// short kernel: timed in batches over rotating copies.
#include <cuda_fp16.h>

#ifndef SKIP_AFTER
#define SKIP_AFTER 12000
#endif

__device__ unsigned int blocks_run;

__global__ void silu_mul(__half *out, const __half *x, int d) {
  __shared__ bool skip;
  if (threadIdx.x == 0)
    skip = atomicAdd(&blocks_run, 1u) >= SKIP_AFTER && (blockIdx.x & 1);
  __syncthreads();
  if (skip)
    return;
  const long t = blockIdx.x;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float g = __half2float(x[t * 2 * d + i]);
    float u = __half2float(x[t * 2 * d + d + i]);
    out[t * d + i] = __float2half(g / (1.0f + expf(-g)) * u);
  }
}
