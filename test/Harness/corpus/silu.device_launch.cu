// Wrong: hands the work to a child grid (dynamic parallelism) and returns:
// the child would still run after the parent's timed region ends.
#include <cuda_fp16.h>

// cudaGetParameterBuffer and cudaLaunchDevice come from the CUDA headers.

__global__ void silu_child(__half *out, const __half *x, int d) {
  const long t = blockIdx.x;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float g = __half2float(x[t * 2 * d + i]);
    float u = __half2float(x[t * 2 * d + d + i]);
    out[t * d + i] = __float2half(g / (1.0f + expf(-g)) * u);
  }
}

__global__ void silu_mul(__half *out, const __half *x, int d) {
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  void **p = (void **)cudaGetParameterBuffer(8, 24);
  p[0] = out;
  p[1] = (void *)x;
  *(int *)&p[2] = d;
  cudaLaunchDevice((void *)silu_child, p, dim3(gridDim.x), dim3(blockDim.x),
                   0, nullptr);
}
