// coarsen sees what a kernel runs besides its calls (the reach of
// DeviceFunctions.cpp, widened after the fold-blocks review): a function
// reached only through a constructor, an in-class initialiser, a destructor
// that holds an atomic, a call through a function pointer (refused: its
// callee is not known) and a spaced `# if` in the body. The last three
// were coarsened before; the first two were refused before only because
// their local is declared before the per-thread work and changed later.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s
// RUN: %astra-opt --list-rewrites %s 2>&1 | grep " coarsen " | FileCheck %s --check-prefix=NONE
// NONE-NOT: : applies

#include <cuda_runtime.h>

__device__ unsigned lane_of() { return threadIdx.x; }
struct Lane {
  unsigned l;
  __device__ Lane() : l(lane_of()) {}
};
__global__ void via_ctor(float *out, const float *x, int n) {
  __shared__ float a[1024];
  Lane L;
  a[threadIdx.x] = x[blockIdx.x * n + L.l];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK-DAG: coarsen via_ctor: does not apply: coarsen of via_ctor by 8: it calls lane_of, which reads threadIdx or blockDim (not rewritten)

struct InClass {
  unsigned l = threadIdx.x;
};
__global__ void in_class(float *out, const float *x, int n) {
  __shared__ float a[1024];
  InClass c;
  a[threadIdx.x] = x[blockIdx.x * n + c.l];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK-DAG: coarsen in_class: does not apply: coarsen of in_class by 8: it calls InClass::InClass, which reads threadIdx or blockDim (not rewritten)

struct Count {
  int *c;
  __device__ ~Count() { atomicAdd(c, 1); }
};
__global__ void counted(float *out, const float *x, int *cnt, int n) {
  __shared__ float a[1024];
  Count k{cnt};
  a[threadIdx.x] = x[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK-DAG: coarsen counted: does not apply: coarsen of counted by 8: it calls Count::~Count, which calls atomicAdd

__device__ unsigned (*lane_fn)() = lane_of;
__global__ void via_pointer(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * n + lane_fn()];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK-DAG: coarsen via_pointer: does not apply: coarsen of via_pointer by 8: it makes a call through a pointer (what the callee reads is not known)

__global__ void spaced_if(float *out, const float *x, int n) {
  __shared__ float a[1024];
  float v = x[blockIdx.x * n + threadIdx.x];
# if defined(SQUARE)
  v = v * v;
# endif
  a[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK-DAG: coarsen spaced_if: does not apply: coarsen of spaced_if by 8: its body holds a preprocessor conditional
