// Wrong: counts the blocks it has run in a __device__ variable; past
// SKIP_AFTER blocks (over all launches; 2048 per launch of the spec's
// shape), odd blocks return at once. A long kernel (256 MB in and out):
// timed one launch per sample, not in batches.
#ifndef SKIP_AFTER
#define SKIP_AFTER 20480
#endif

__device__ unsigned int blocks_run;

__global__ void scale(float *out, const float *x, long n) {
  __shared__ bool skip;
  if (threadIdx.x == 0)
    skip = atomicAdd(&blocks_run, 1u) >= SKIP_AFTER && (blockIdx.x & 1);
  __syncthreads();
  if (skip)
    return;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    out[i] = 2.0f * x[i] + 1.0f;
}
