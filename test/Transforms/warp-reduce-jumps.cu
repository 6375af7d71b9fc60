// warp-reduce where jumps decide whether a refill runs between a tree and a
// read of its leftovers (from a review): a continue or break of the loop that
// may skip a refill after the tree, a case label between a refill and the
// tree or the read (a jump there skips the refill), goto anywhere in the
// kernel (not followed: refused). Refills the check credits: an if/else
// whose branches both refill, and one inside a plain { } block.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s | FileCheck %s
// RUN: %astra-opt --apply=fold-blocks:kernel=switch_before,exact=1 %s | FileCheck %s --check-prefix=FOLD

#include <cuda_runtime.h>

// A continue skips the refill after the tree: the next run reduces the
// partial sums.
__global__ void cont_skip(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[threadIdx.x];
  for (int k = 0; k < 4; ++k) {
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s)
        a[threadIdx.x] += a[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0)
      out[k] = a[0];
    __syncthreads();
    if (k % 2 == 0)
      continue;
    a[threadIdx.x] = x[(k + 1) * n + threadIdx.x];
  }
}
// CHECK: warp-reduce cont_skip cont_skip:L1: does not apply: the loop at line {{[0-9]+}} runs the tree again with no refill of a[tid] between runs that every run reaches (a break or continue of the loop may skip one)
// A break out of the inner loop skips its refill; the outer loop runs it again.
__global__ void break_skip(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[threadIdx.x];
  for (int k = 0; k < 4; ++k) {
    for (int j = 0; j < 4; ++j) {
      __syncthreads();
      for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
          a[threadIdx.x] += a[threadIdx.x + s];
        __syncthreads();
      }
      if (threadIdx.x == 0)
        out[k * 4 + j] = a[0];
      __syncthreads();
      if (a[0] > 100.f)
        break;
      a[threadIdx.x] = x[(k * 4 + j + 1) * n + threadIdx.x];
    }
  }
}
// CHECK: warp-reduce break_skip break_skip:L2: does not apply: the loop at line {{[0-9]+}} runs the tree again with no refill of a[tid] between runs that every run reaches

// The refill after the tree is in another case of the switch.
__global__ void switch_after(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[threadIdx.x];
  for (int k = 0; k < 4; ++k) {
    switch (n) {
    case 0:
      out[k] = 0;
      __syncthreads();
      for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
          a[threadIdx.x] += a[threadIdx.x + s];
        __syncthreads();
      }
      break;
    case 1:
      out[k] = 1;
      a[threadIdx.x] = x[threadIdx.x];
      break;
    }
  }
  if (threadIdx.x == 0) out[0] = a[0];
}
// CHECK: warp-reduce switch_after switch_after:L1: does not apply: a case label before the tree (in the block at line {{[0-9]+}}) lets a jump skip a refill of a[tid] between runs

// The refill before the tree is above a case label that a jump may enter by.
__global__ void switch_before(float *out, const float *x, int n, int m) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.y * n + threadIdx.x];
  for (int k = 0; k < 4; ++k) {
    switch (m) {
    case 0:
      out[k] = 0;
      a[threadIdx.x] = x[k * n + threadIdx.x];
    case 1:
      out[k] = 1;
      __syncthreads();
      for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
          a[threadIdx.x] += a[threadIdx.x + s];
        __syncthreads();
      }
    }
  }
  if (threadIdx.x == 0) out[0] = a[0];
}
// CHECK: warp-reduce switch_before switch_before:L1: does not apply: a case label before the tree (in the block at line {{[0-9]+}}) lets a jump skip a refill of a[tid] between runs
// FOLD: __global__ void switch_before(
// FOLD-NOT: __shfl_xor_sync
// FOLD: {{^ +}}if (threadIdx.x == 0) out[0] = (a + threadIdx.y * blockDim.x)[0];

// A loop made of goto.
__global__ void goto_loop(float *out, const float *x, int n) {
  __shared__ float a[1024];
  int k = 0;
  a[threadIdx.x] = x[threadIdx.x];
again:
  k += 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[k] = a[0];
  if (++k < 4) goto again;
}
// CHECK: warp-reduce goto_loop goto_loop:L0: does not apply: the kernel uses goto, whose jumps the check does not follow

// A later read after a case label, the refill before the label.
__global__ void later_switch(float *out, const float *x, int n, int m) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  switch (m) {
  case 0:
    out[0] = a[0];
    a[threadIdx.x] = 1.f;
  case 1:
    out[1] = 0;
    out[threadIdx.x + 2] = a[threadIdx.x ^ 1];
  }
}
// CHECK: warp-reduce later_switch later_switch:L0: does not apply: line {{[0-9]+}} reads a[threadIdx.x ^ 1] after a tree without refilling the array first

// A later read that a goto may reach without the refill.
__global__ void later_goto(float *out, const float *x, int n, int m) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (m) goto skip;
  a[threadIdx.x] = 1.f;
skip:
  out[threadIdx.x] = a[threadIdx.x ^ 1];
}
// CHECK: warp-reduce later_goto later_goto:L0: does not apply: the kernel uses goto

// Both branches of an if/else refill.
__global__ void ifelse_refill(float *out, const float *x, int n) {
  __shared__ float a[1024];
  for (int k = 0; k < 4; ++k) {
    int i = k * blockDim.x + threadIdx.x;
    if (i < n)
      a[threadIdx.x] = x[i];
    else
      a[threadIdx.x] = 0.f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s)
        a[threadIdx.x] += a[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[k] = a[0];
    __syncthreads();
  }
}
// CHECK: warp-reduce ifelse_refill ifelse_refill:L1: applies: sum of 'a' (float)

// The refill inside a plain { } block.
__global__ void block_refill(float *out, const float *x, int n) {
  __shared__ float a[1024];
  for (int k = 0; k < 4; ++k) {
    {
      float v = x[k * n + threadIdx.x];
      a[threadIdx.x] = v * v;
    }
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) a[threadIdx.x] += a[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[k] = a[0];
    __syncthreads();
  }
}
// CHECK: warp-reduce block_refill block_refill:L1: applies: sum of 'a' (float)
