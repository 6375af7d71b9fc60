// out = silu(gate) * up, one row per block (the gated MLP activation).
#include "common.cuh"
#include "vecops/vecops.h"

__global__ void silu_mul(__half *__restrict__ out,
                         const __half *__restrict__ in, int d) {
  const __half *gate = in + (size_t)blockIdx.x * 2 * d;
  const __half *up = gate + d;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float g = __half2float(gate[i]);
    float u = __half2float(up[i]);
    out[(size_t)blockIdx.x * d + i] = __float2half(g / (1.0f + expf(-g)) * u);
  }
}

void vecops_silu_mul(__half *out, const __half *in, int T, int d,
                     cudaStream_t stream) {
  silu_mul<<<T, VECOPS_BLOCK, 0, stream>>>(out, in, d);
}
