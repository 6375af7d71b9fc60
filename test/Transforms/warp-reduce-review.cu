// warp-reduce (and coarsen, which matches the same trees) on trees a review
// found rewritten wrongly, each now refused with its reason:
// - a max/min step through std::max or a function of the project's: the
//   rewrite called CUDA's max (fmaxf), and `(a < b) ? b : a` keeps a NaN or
//   a -0.0 depending on the order of its operands;
// - an 8-bit stride: the loop starts from blockDim.x / 2 truncated (0 for 512
//   threads), the guard from blockDim.x / 2;
// - the address of a[0] kept before the tree, p[1] read after it;
// - a refill by the threads of one branch only (warp 0), then a read of an
//   element it did not refill; also a refill after a thread-dependent return;
// - a file-scope __shared__ array that a device function reads after the
//   tree; an extern __shared__ array read through another one.
// Still rewritten: a refill under a condition uniform over the block, and in
// a loop whose trip count is.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s
// RUN: not %astra-opt --apply=coarsen:kernel=std_max,extent=P %s 2>&1 | FileCheck %s --check-prefix=COARSEN

#include <cuda_runtime.h>
#include <algorithm>

namespace util {
template <typename T> __device__ T max(T a, T b) { return a > b ? a : b; }
} // namespace util

__global__ void std_max(const float *x, float *out, int P) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * P + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] = std::max(a[threadIdx.x], a[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK: warp-reduce std_max std_max:L0: does not apply: the tree step calls 'std::max', not CUDA's 'max' (its result may depend on the order of its operands: a NaN or a -0.0 kept or not)
// COARSEN: coarsen of std_max by 8: no shared-memory tree reduction (the tree step calls 'std::max', not CUDA's 'max'

__global__ void user_max(const float *x, float *out) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] = util::max(a[threadIdx.x], a[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK: warp-reduce user_max user_max:L0: does not apply: the tree step calls 'util::max', which is not CUDA's (the rewrite would call CUDA's)

// CUDA's own max and fminf still apply.
__global__ void cuda_max(const int *x, int *out) {
  __shared__ int a[1024];
  a[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] = max(a[threadIdx.x], a[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK: warp-reduce cuda_max cuda_max:L0: applies: max of 'a' (int)

__global__ void narrow_stride(const float *x, float *out) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned char s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// CHECK: warp-reduce narrow_stride narrow_stride:L0: does not apply: the stride 's' is a 8-bit integer, which may not hold the first stride

__global__ void address_kept(const float *x, float *out) {
  __shared__ float a[256];
  float *p = &a[0];
  a[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = p[0];
    out[2 * blockIdx.x + 1] = p[1];
  }
}
// CHECK: warp-reduce address_kept address_kept:L0: does not apply: line [[#@LINE-13]] takes the address of a[0] or binds it to a reference: reads through it after the tree are not followed

__global__ void warp_refill(const float *x, float *out) {
  __shared__ float a[256];
  a[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    const float total = a[0];
    __syncwarp();
    a[threadIdx.x] = total * threadIdx.x;
    __syncwarp();
    out[blockIdx.x * 32 + threadIdx.x] = a[threadIdx.x + 1];
  }
}
// CHECK: warp-reduce warp_refill warp_refill:L0: does not apply: line [[#@LINE-3]] reads a[threadIdx.x + 1] after a tree, refilled at line [[#@LINE-5]] only by the threads that pass a condition (or stay) there

__global__ void return_refill(const float *x, float *out) {
  __shared__ float a[256];
  a[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  const float total = a[0];
  __syncthreads();
  if (threadIdx.x >= 32)
    return;
  a[threadIdx.x] = total * threadIdx.x;
  __syncwarp();
  out[blockIdx.x * 32 + threadIdx.x] = a[threadIdx.x + 1];
}
// CHECK: warp-reduce return_refill return_refill:L0: does not apply: line [[#@LINE-2]] reads a[threadIdx.x + 1] after a tree, refilled at line [[#@LINE-4]] only by the threads that pass a condition (or stay) there

// A refill under a condition the whole block shares, and in a loop whose
// trip count it shares: every thread refills.
__global__ void uniform_refill(const float *x, float *out, int rounds,
                               int flag) {
  __shared__ float a[1024];
  const int row = blockIdx.x;
  a[threadIdx.x] = x[row * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  const float total = a[0];
  __syncthreads();
  if (flag != 0 && row < gridDim.x) {
    for (int r = 0; r < rounds; r += 2) {
      a[threadIdx.x] = total + r;
      __syncthreads();
      out[row * blockDim.x + threadIdx.x] = a[blockDim.x - 1 - threadIdx.x];
      __syncthreads();
    }
  }
}
// CHECK: warp-reduce uniform_refill uniform_refill:L0: applies: sum of 'a' (float)

__shared__ float g[256];
__device__ float second() { return g[1]; }

__global__ void file_scope(const float *x, float *out) {
  g[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      g[threadIdx.x] += g[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = g[0] - second();
}
// CHECK: warp-reduce file_scope file_scope:L0: does not apply: 'g' is declared outside the kernel and used at line [[#@LINE-13]], which the check of reads after the tree does not follow

__global__ void extern_alias(const float *x, float *out) {
  extern __shared__ float dyn[];
  extern __shared__ float view[];
  dyn[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      dyn[threadIdx.x] += dyn[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = view[1];
}
// CHECK: warp-reduce extern_alias extern_alias:L0: does not apply: the extern __shared__ 'view' (line [[#@LINE-2]]) shares the memory of 'dyn', whose reads the check of reads after the tree does not follow
