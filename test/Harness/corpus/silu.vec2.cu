// Correct variant: half2 accesses when rows are 4-byte aligned, scalar tail.
#include <cuda_fp16.h>

__device__ __half silu1(__half g, __half u) {
  float gf = __half2float(g);
  return __float2half(gf / (1.0f + expf(-gf)) * __half2float(u));
}

__global__ void silu_mul(__half *out, const __half *x, int d) {
  const long t = blockIdx.x;
  const __half *gate = x + t * 2 * d, *up = gate + d;
  __half *o = out + t * d;
  if (d % 2 == 0) {
    for (int i = threadIdx.x; i < d / 2; i += blockDim.x) {
      __half2 g = reinterpret_cast<const __half2 *>(gate)[i];
      __half2 u = reinterpret_cast<const __half2 *>(up)[i];
      reinterpret_cast<__half2 *>(o)[i] =
          __halves2half2(silu1(g.x, u.x), silu1(g.y, u.y));
    }
  } else {
    for (int i = threadIdx.x; i < d; i += blockDim.x)
      o[i] = silu1(gate[i], up[i]);
  }
}
