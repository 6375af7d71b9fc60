// Kernels for the launch spec tests.
#include <cuda_fp16.h>

__global__ void scale(float *out, const float *in, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = alpha * in[i];
}

// Loads and stores through acc: an in-place update.
__global__ void addto(float *acc, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    acc[i] += x[i];
}

template <typename T> __global__ void act(T *out, const T *in, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < d)
    out[i] = in[i] > T(0) ? in[i] : T(0);
}
template __global__ void act<__half>(__half *, const __half *, int);
template __global__ void act<float>(float *, const float *, int);
