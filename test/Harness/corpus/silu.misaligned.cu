// Wrong: reads the up half with 16-byte loads at an offset that is only
// 2-byte aligned: a misaligned-address trap.
#include <cuda_fp16.h>

__global__ void silu_mul(__half *out, const __half *x, int d) {
  const long t = blockIdx.x;
  const __half *up = x + t * 2 * d + d + 1;
  for (int i = threadIdx.x; i < d / 8 - 1; i += blockDim.x) {
    uint4 v = reinterpret_cast<const uint4 *>(up)[i];
    const __half *h = reinterpret_cast<const __half *>(&v);
    for (int k = 0; k < 8; ++k) {
      int j = i * 8 + k;
      float g = __half2float(x[t * 2 * d + j]);
      out[t * d + j] = __float2half(g / (1.0f + expf(-g)) * __half2float(h[k]));
    }
  }
}
