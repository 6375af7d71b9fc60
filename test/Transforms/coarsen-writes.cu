// coarsen refuses a kernel whose per-thread work changes what lies outside
// it in ways other than a plain assignment (from a review): a side effect in
// the leaf's value, a member of a struct parameter, a call that takes a
// parameter by reference. Each of the C copies a thread runs would make the
// change again. And a tree with a bounds check is coarsened only for a
// power-of-two block too (which partners it skips depends on the block).
// Device functions it calls are checked for what the kernel's own body may
// not hold (warp shuffles, barriers, atomics, inline assembly), and
// threadIdx passed whole is refused (only its .x is rewritten).
// REQUIRES: cuda-headers
// RUN: not %astra-opt --apply=coarsen:kernel=leaf_effect,extent=P %s 2>&1 | FileCheck %s --check-prefix=LEAF
// RUN: not %astra-opt --apply=coarsen:kernel=member_write,extent=P %s 2>&1 | FileCheck %s --check-prefix=MEMBER
// RUN: not %astra-opt --apply=coarsen:kernel=by_reference,extent=P %s 2>&1 | FileCheck %s --check-prefix=REF
// RUN: %astra-opt --apply=coarsen:kernel=checked_tree,extent=P %s | FileCheck %s --check-prefix=POW2
// RUN: not %astra-opt --apply=coarsen:kernel=callee_shuffle,extent=P %s 2>&1 | FileCheck %s --check-prefix=SHFL
// RUN: not %astra-opt --apply=coarsen:kernel=callee_atomic,extent=P %s 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: not %astra-opt --apply=coarsen:kernel=callee_asm,extent=P %s 2>&1 | FileCheck %s --check-prefix=ASM
// RUN: not %astra-opt --apply=coarsen:kernel=whole_index,extent=P %s 2>&1 | FileCheck %s --check-prefix=WHOLE

#include <cuda_runtime.h>

__global__ void leaf_effect(float *out, const float *in, int n, int P) {
  __shared__ float a[1024];
  const int i = blockIdx.x * P + threadIdx.x;
  a[threadIdx.x] = in[i] * n--;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[i] = a[0] * n;
}
// LEAF: coarsen of leaf_effect by 8: it writes 'n', declared outside the per-thread work

struct Prm {
  float scale;
  int off;
};
__global__ void member_write(float *out, const float *in, Prm p, int P) {
  __shared__ float a[1024];
  const int i = blockIdx.x * P + threadIdx.x;
  p.scale *= 2.0f;
  float v = in[i] * p.scale;
  a[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[i] = v / a[0];
}
// MEMBER: coarsen of member_write by 8: 'p', declared outside the per-thread work, may change in it

__device__ void inc(int &r) { r++; }
__global__ void by_reference(float *out, const float *in, int n, int P) {
  __shared__ float a[1024];
  const int i = blockIdx.x * P + threadIdx.x;
  inc(n);
  float v = in[i] * n;
  a[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[i] = v / a[0];
}
// REF: coarsen of by_reference by 8: 'n', declared outside the per-thread work, may change in it

__global__ void checked_tree(float *out, const float *in, int P) {
  __shared__ float a[1024];
  const int i = blockIdx.x * P + threadIdx.x;
  a[threadIdx.x] = in[i];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && threadIdx.x + s < blockDim.x)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[i] = a[0];
}
// POW2: if (blockDim.x * 8 == static_cast<unsigned int>(P) && (P & (P - 1)) == 0) {

__device__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__global__ void callee_shuffle(float *out, const float *in, int P) {
  __shared__ float a[1024];
  const int i = blockIdx.x * P + threadIdx.x;
  float v = warpSum(in[i]);
  a[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[i] = v / a[0];
}
// SHFL: coarsen of callee_shuffle by 8: it calls warpSum, which calls __shfl_xor_sync

__device__ int bump(int *counter) { return atomicAdd(counter, 1); }
__global__ void callee_atomic(float *out, const float *in, int *counter,
                              int P) {
  __shared__ float a[1024];
  const int i = blockIdx.x * P + threadIdx.x;
  float v = in[i] + bump(counter);
  a[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[i] = v / a[0];
}
// ATOMIC: coarsen of callee_atomic by 8: it calls bump, which calls atomicAdd

__device__ unsigned laneId() {
  unsigned r;
  asm("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
__global__ void callee_asm(float *out, const float *in, int P) {
  __shared__ float a[1024];
  const int i = blockIdx.x * P + threadIdx.x;
  float v = in[i] * laneId();
  a[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[i] = v / a[0];
}
// ASM: coarsen of callee_asm by 8: it calls laneId, which holds inline assembly

__device__ unsigned getx(uint3 t) { return t.x; }
__global__ void whole_index(float *out, const float *in, int P) {
  __shared__ float a[1024];
  const int i = blockIdx.x * P + getx(threadIdx);
  float v = in[i];
  a[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[i] = v / a[0];
}
// WHOLE: coarsen of whole_index by 8: it passes threadIdx whole, not as its .x
