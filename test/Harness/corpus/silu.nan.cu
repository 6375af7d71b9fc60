// Wrong: clamps the gate to avoid overflow in expf; fmaxf/fminf turn a NaN
// gate into a number, so NaN inputs no longer give NaN outputs.
#include <cuda_fp16.h>

__global__ void silu_mul(__half *out, const __half *x, int d) {
  const long t = blockIdx.x;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float g = fminf(fmaxf(__half2float(x[t * 2 * d + i]), -60.0f), 60.0f);
    float u = __half2float(x[t * 2 * d + d + i]);
    out[t * d + i] = __float2half(g / (1.0f + expf(-g)) * u);
  }
}
