// One element per thread of a block (threadIdx.x alone, block = d), rows
// `ld` apart: the guard of vectorize-loads' one-element-per-thread form asks
// that the row starts be aligned, not that d divide into packs, so its
// scalar tail runs (d = 100: 12 packs of 8 halves and 4 elements).
// test/Harness/any-block-gpu.test.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void block_row(__half *out, float *tag, const __half *a,
                          const float *w, int d, int ld) {
  const int row = blockIdx.x;
  const int i = threadIdx.x;
  const float s = w[row] + 1.0f;
  if (i < d) {
    const int64_t off = (int64_t)row * ld + i;
    out[off] = __float2half(__half2float(a[off]) * s);
  }
  if (i == 0)
    tag[row] = s;
}
