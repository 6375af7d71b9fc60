// Rotation pairs over the first n columns of each half of a row of 2 * h
// floats (a partial rotary embedding): x[i] with x[i + h], cos and sin from
// the two halves of cs. n < h leaves a scalar tail of n % 4 pairs.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void partial_rotate(float *x, const float *__restrict__ cs, int n,
                               int h) {
  float *row = x + (int64_t)blockIdx.x * 2 * h;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float c = cs[i];
    float s = cs[h + i];
    float a = row[i];
    float b = row[i + h];
    row[i] = a * c - b * s;
    row[i + h] = b * c + a * s;
  }
}
