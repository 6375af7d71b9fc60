// Wrong: processes whole groups of 8 and forgets the d % 8 tail.
#include <cuda_fp16.h>

__global__ void silu_mul(__half *out, const __half *x, int d) {
  const long t = blockIdx.x;
  for (int b = threadIdx.x * 8; b + 8 <= d; b += blockDim.x * 8)
    for (int k = 0; k < 8; ++k) {
      int i = b + k;
      float g = __half2float(x[t * 2 * d + i]);
      float u = __half2float(x[t * 2 * d + d + i]);
      out[t * d + i] = __float2half(g / (1.0f + expf(-g)) * u);
    }
}
