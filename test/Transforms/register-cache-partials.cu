// register-cache and the per-thread values its loops leave (sum after
// `for (i = tid; i < n; i += blockDim.x) sum += ...`): the cached path gives
// each thread other elements, so only a combination over the whole block
// with the same operation sees the same value. A shared-memory tree of that
// operation (then only a[0] read) and a loop over all of a[0, blockDim.x)
// apply, the tree with a power-of-two block in the guard; every other use
// is refused with its reason (PerThreadValues.cpp).
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | grep " register-cache " | FileCheck %s
// RUN: %astra-opt --apply=register-cache:kernel=tree_ok %s | grep -v '^//' | FileCheck %s --check-prefix=TREE
// RUN: %astra-opt --apply=register-cache:kernel=loop_ok %s | grep -v '^//' | FileCheck %s --check-prefix=LOOP

#include <cuda_runtime.h>

// Thread 0's own partial stands for the block.
__global__ void own_partial(float *out, const float *in, int d) {
  __shared__ float red[1];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  if (threadIdx.x == 0)
    red[0] = sum;
  __syncthreads();
  const float t = red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
}
// CHECK-DAG: register-cache own_partial own_partial:L0: does not apply: line {{[0-9:]+}} uses 'sum', which the loop at line {{[0-9:]+}} leaves per thread (the rewrite gives each thread other elements

// A warp's sum by shuffles: each warp's value depends on its threads' elements.
__global__ void warp_shuffle(float *out, const float *in, int d) {
  __shared__ float red[32];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  sum += __shfl_xor_sync(0xffffffffu, sum, 1);
  if (threadIdx.x % 32 == 0)
    red[threadIdx.x / 32] = sum;
  __syncthreads();
  const float t = red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
}
// CHECK-DAG: register-cache warp_shuffle warp_shuffle:L0: does not apply: line {{[0-9:]+}} uses 'sum', which the loop at line {{[0-9:]+}} leaves per thread

// Converted before the tree: the truncation depends on the grouping.
__global__ void converted(float *out, const float *in, int d) {
  __shared__ int red[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  red[threadIdx.x] = (int)sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float t = (float)red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
}
// CHECK-DAG: register-cache converted converted:L0: does not apply: line {{[0-9:]+}} uses 'sum', which the loop at line {{[0-9:]+}} leaves per thread

// Summed per thread, combined by max: the max of the threads' sums.
__global__ void max_of_sums(float *out, const float *in, int d) {
  __shared__ float red[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float t = red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
}
// CHECK-DAG: register-cache max_of_sums max_of_sums:L0: does not apply: line {{[0-9:]+}} takes the max of 'sum', which the loop at line {{[0-9:]+}} accumulates by sum (the result depends on which elements each thread owns)

// A partial result of the tree: thread 1's half of the block.
__global__ void tree_partial(float *out, const float *in, int d) {
  __shared__ float red[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float t = red[0] - red[1];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
}
// CHECK-DAG: register-cache tree_partial tree_partial:L0: does not apply: line {{[0-9]+}} reads red[1] after a tree without refilling the array first

// The sequential loop leaves thread 0's partial in red[0], read after it.
__global__ void loop_then_own(float *out, const float *in, int d) {
  __shared__ float red[1024];
  __shared__ float total;
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int k = 0; k < blockDim.x; ++k)
      total += red[k];
  }
  __syncthreads();
  const float t = total / red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
}
// CHECK-DAG: register-cache loop_then_own loop_then_own:L0: does not apply: line {{[0-9:]+}} uses 'red', which holds the per-thread values of 'sum'

// A per-thread count written out after the last loop.
__global__ void count_after(float *out, int *counts, const float *in, int d) {
  __shared__ float red[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float t = red[0];
  int big = 0;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
    big += x[i] > t ? 1 : 0;
  }
  counts[blockIdx.x * blockDim.x + threadIdx.x] = big;
}
// CHECK-DAG: register-cache count_after count_after:L0: does not apply: line {{[0-9:]+}} uses 'big', which the loop at line {{[0-9:]+}} leaves per thread

// Applies: a max tree of a per-thread max; the guard asks for the tree's
// block (one-dimensional, a power of two, twice the first stride).
__global__ void tree_ok(float *out, const float *in, int d) {
  __shared__ float red[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float m = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    m = fmaxf(m, fabsf(x[i]));
  }
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float t = 1.0f / red[0];
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
}
// CHECK-DAG: register-cache tree_ok tree_ok:L0: applies: {{.*}}, a one-dimensional power-of-two block (the reduction tree's); fallback
// TREE: const bool rcFits{{[0-9]*}} =
// TREE: blockDim.y * blockDim.z == 1 &&
// TREE-NEXT: 2 * (blockDim.x / 2) == blockDim.x &&
// TREE-NEXT: ((blockDim.x / 2) & ((blockDim.x / 2) - 1)) == 0 &&

// Applies: thread 0 sums every partial; the guard asks for a
// one-dimensional block.
__global__ void loop_ok(float *out, const float *in, int d) {
  __shared__ float red[1024];
  __shared__ float total;
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += x[i] * x[i];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int k = 0; k < blockDim.x; k++)
      total += red[k];
  }
  __syncthreads();
  const float t = rsqrtf(total / d);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
}
// CHECK-DAG: register-cache loop_ok loop_ok:L0: applies: {{.*}}, a one-dimensional block; fallback
// LOOP: const bool rcFits{{[0-9]*}} =
// LOOP: blockDim.y * blockDim.z == 1 &&
// LOOP-NOT: blockDim.x / 2

// warp-reduce sees the same read of red[1] (in a declaration's initialiser)
// after tree_partial's tree.
// RUN: %astra-opt --list-rewrites %s 2>&1 | grep " warp-reduce tree_partial" | FileCheck %s --check-prefix=WARP
// WARP: does not apply: line {{[0-9]+}} reads red[1] after a tree without refilling the array first
