#include "divide_helpers.cuh"

__global__ void divide(float *out, const float *a, const float *b) {
  int i = threadIdx.x;
  out[i] = quotient(a[i], b[i]);
}
