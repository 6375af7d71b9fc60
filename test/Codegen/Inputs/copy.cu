#include "copy_helpers.cuh"

__global__ void copy(float *out, const float *in) {
  out[threadIdx.x] = scale(in[threadIdx.x]);
}
