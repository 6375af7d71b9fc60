// A kernel file with host code that nvcc accepts and Clang's CUDA mode does
// not: a checker template calling a function no header declares (nvcc only
// looks it up at instantiation; here it is never declared at all), a lambda
// inside main using it, and a main that calls both.
#include <cstdio>
#include <cuda_runtime.h>

__device__ float softplus(float x) { return logf(1.f + expf(x)); }

__global__ void activate(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = softplus(x[i]) / sqrtf(x[i] * x[i] + 1.f);
}

template <typename T> int count_bad(const T *v, int n) {
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += host_only_check(v[i]);
  return bad;
}

struct Timer {
  Timer() : start(now_seconds()) {}
  double start;
};

int main() {
  const int n = 256;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  activate<<<1, n>>>(y, x, n);
  float h[n];
  cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost);
  auto report = [&](int bad) { print_summary(bad, n); };
  report(count_bad(h, n));
  return 0;
}
