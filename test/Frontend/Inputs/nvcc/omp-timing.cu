// A kernel and a host main timed with the OpenMP runtime; built with
// `nvcc -Xcompiler -fopenmp`.
#include <cstdio>
#include <omp.h>

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += a * x[i];
}

int main() {
  const int n = 1 << 20;
  float *x = new float[n], *y = new float[n];
  double t0 = omp_get_wtime();
#pragma omp parallel for
  for (int i = 0; i < n; ++i)
    x[i] = y[i] = (float)omp_get_thread_num();
  printf("%f s on %d threads\n", omp_get_wtime() - t0, omp_get_max_threads());
  delete[] x;
  delete[] y;
  return 0;
}
