// Kernels with integer and float outputs, for the per-output tolerance tests.
#include <stdint.h>

// Per-row int8 quantization: q = rint(x / scale), scale = max|x| / 127.
__global__ void quant(int8_t *q, float *scales, const float *x, int n) {
  int row = blockIdx.x;
  float m = 1e-10f;
  for (int i = 0; i < n; ++i)
    m = fmaxf(m, fabsf(x[row * n + i]));
  float s = m / 127.0f;
  if (threadIdx.x == 0)
    scales[row] = s;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    q[row * n + i] = (int8_t)rintf(x[row * n + i] / s);
}

// Only an integer output.
__global__ void argmax(int *idx, const float *x, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (x[i] > x[best])
      best = i;
  *idx = best;
}
