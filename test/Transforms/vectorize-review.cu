// vectorize-loads and the kernels a review found it rewrote wrongly:
// - plain form: a row read or stored only under a condition (optional
//   pointer, optional output, two outputs that may be one buffer) is left to
//   the widened form, which keeps the condition per lane;
// - per-thread partials of an integer sum written out per thread, and two
//   loops over the same elements with no barrier between them, are refused;
// - an unsigned index that wraps within a pack is not `v + lane` once
//   zero-extended: each lane computes its own;
// - printf runs once per element, not once per pack;
// - the grid's thread count is taken modulo the index type and the guard
//   checks that it fits.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | grep " vectorize-loads " | FileCheck %s
// RUN: %astra-opt --apply=vectorize-loads %s | grep -v '^//' | FileCheck %s --check-prefix=OUT

#include <cstdio>

__global__ void add_bias(float *y, const float *x, const float *bias,
                         int has_bias, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float v = x[i];
    if (has_bias)
      v += bias[i];
    y[i] = v;
  }
}
// CHECK-DAG: vectorize-loads add_bias add_bias:L0: applies: {{.*}}the body runs once per pack
// OUT-LABEL: void add_bias(
// OUT:        if (has_bias) {
// OUT:          biasVec.u = *reinterpret_cast<const float4 *>(&bias[i]);

__global__ void split_sign(float *a, float *b, const float *x, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (x[i] > 0.0f)
      a[i] = x[i];
    else
      b[i] = -x[i];
  }
}
// OUT-LABEL: void split_sign(
// OUT:        if (xVec.v[lane] > 0.0f)
// OUT-NEXT:     a[(i + lane)] = x[(i + lane)];
// OUT-NEXT:   else
// OUT-NEXT:     b[(i + lane)] = -x[(i + lane)];

__global__ void partial(int *out, const int *x, int n) {
  int s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i];
  out[threadIdx.x] = s;
}
// CHECK-DAG: vectorize-loads partial partial:L0: does not apply: loop partial:L0: line {{[0-9:]+}} uses 's', which the loop at line {{[0-9:]+}} leaves per thread

__global__ void grid_partial(float *out, const float *x, int n) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    s += x[i];
  atomicAdd(out + blockIdx.x, s);
}
// CHECK-DAG: vectorize-loads grid_partial grid_partial:L0: does not apply: {{.*}}uses 's', which the loop at line {{[0-9:]+}} leaves per thread (a grid-stride loop

// One address for the whole grid: the sum over every thread.
__global__ void grid_total(float *out, const float *x, int n) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    s += x[i];
  atomicAdd(out, s);
}
// CHECK-DAG: vectorize-loads grid_total grid_total:L0: applies:

__global__ void two_phase(float *y, float *tmp, const float *x, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    tmp[i] = x[2 * i] + x[2 * i + 1];
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    y[i] = tmp[i] * 0.5f;
}
// CHECK-DAG: vectorize-loads two_phase two_phase:L0: does not apply: loop two_phase:L0: 'tmp' is accessed by the loop and, with no barrier between them, by another statement
// CHECK-DAG: vectorize-loads two_phase two_phase:L1: does not apply: loop two_phase:L1: 'tmp' is accessed by the loop and, with no barrier between them, by another statement

// With a barrier between the loops, each applies.
__global__ void two_phase_sync(float *y, float *tmp, const float *x, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    tmp[i] = x[i] + 1.0f;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    y[i] = tmp[i] * 0.5f;
}
// CHECK-DAG: vectorize-loads two_phase_sync two_phase_sync:L0: applies:
// CHECK-DAG: vectorize-loads two_phase_sync two_phase_sync:L1: applies:

__global__ void shift_right(float *y, const float *x, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  size_t j = i - 1;
  y[i] = j < n ? x[j] : 0.0f;
}
// OUT-LABEL: void shift_right(
// OUT:        static_cast<unsigned long long>(static_cast<unsigned int>(static_cast<unsigned long long>(gridDim.x) * blockDim.x)) == static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
// OUT:        const unsigned int vecStride = static_cast<unsigned int>(static_cast<unsigned long long>(gridDim.x) * blockDim.x);
// OUT:        j[lane] = (i + lane) - 1;
// OUT-NEXT:   yVec.v[lane] = j[lane] < n ? x[j[lane]] : 0.0f;

__global__ void dbg(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  printf("element\n");
  y[i] = x[i];
}
// OUT-LABEL: void dbg(
// OUT:        for (int lane = 0; lane < VecW; ++lane) {
// OUT-NEXT:     printf("element\n");
