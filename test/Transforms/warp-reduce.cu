// warp-reduce: sum, max and min trees (the `blockDim.x / 2` form and the
// bounds-checked form), both shuffle flavours, and every refusal with its
// reason; the rewritten file compiles to PTX with full-mask shuffles.
// REQUIRES: cuda-headers
// RUN: %astra-opt --apply=warp-reduce %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --apply=warp-reduce:shuffle=down,loop=min_int:L0 %s | %astra-opt --emit-ptx - 2>&1 | FileCheck %s --check-prefix=DOWN
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --list-options %s | FileCheck %s --check-prefix=OPTS

#include <cuda_fp16.h>

// CHECK-LABEL: __global__ void sum_tree(
// CHECK:        buf[threadIdx.x] = acc;
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   if (blockDim.x % 32 == 0 && blockDim.y * blockDim.z == 1 &&
// CHECK-NEXT:       2 * (blockDim.x >> 1) == blockDim.x &&
// CHECK-NEXT:       ((blockDim.x >> 1) & ((blockDim.x >> 1) - 1)) == 0) {
// CHECK-NEXT:     // astra-opt warp-reduce: sum of buf[0, blockDim.x) by warp shuffles and one shared stage; the tree is the fallback.
// CHECK-NEXT:     __shared__ float warpPartial[32];
// CHECK-NEXT:     float warpValue = buf[threadIdx.x];
// CHECK-NEXT:     #pragma unroll
// CHECK-NEXT:     for (int laneOffset = 16; laneOffset > 0; laneOffset >>= 1)
// CHECK-NEXT:       warpValue = warpValue + __shfl_xor_sync(0xffffffffu, warpValue, laneOffset);
// CHECK-NEXT:     if (threadIdx.x % 32 == 0)
// CHECK-NEXT:       warpPartial[threadIdx.x / 32] = warpValue;
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:     if (threadIdx.x < 32) {
// CHECK-NEXT:       warpValue = threadIdx.x < blockDim.x / 32 ? warpPartial[threadIdx.x] : -0.0f;
// CHECK-NEXT:       #pragma unroll
// CHECK-NEXT:       for (int laneOffset = 16; laneOffset > 0; laneOffset >>= 1)
// CHECK-NEXT:         warpValue = warpValue + __shfl_xor_sync(0xffffffffu, warpValue, laneOffset);
// CHECK-NEXT:       if (threadIdx.x == 0)
// CHECK-NEXT:         buf[0] = warpValue;
// CHECK-NEXT:     }
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:   } else {
// CHECK-NEXT:     for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
// CHECK-NEXT:       if (threadIdx.x < s)
// CHECK-NEXT:         buf[threadIdx.x] = buf[threadIdx.x] + buf[threadIdx.x + s];
// CHECK-NEXT:       __syncthreads();
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   if (threadIdx.x == 0)
// CHECK-NEXT:     out[blockIdx.x] = buf[0];
__global__ void sum_tree(float *out, const float *in, int n) {
  __shared__ float buf[1024];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    acc += in[blockIdx.x * n + i];
  buf[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = buf[threadIdx.x] + buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// An int min through a local copy of threadIdx.x; max/min need no identity:
// lanes past the last warp read warp 0's partial again.
// CHECK-LABEL: __global__ void min_int(
// CHECK:        __shared__ int warpPartial1[32];
// CHECK:            warpValue1 = min(warpValue1, __shfl_xor_sync(0xffffffffu, warpValue1, laneOffset1));
// CHECK:          warpValue1 = warpPartial1[threadIdx.x < blockDim.x / 32 ? threadIdx.x : 0];
// CHECK:            m[0] = warpValue1;
// CHECK:        } else {
// CHECK-NEXT:     for (unsigned s = blockDim.x / 2; s != 0; s /= 2) {
__global__ void min_int(int *out, const int *in) {
  __shared__ int m[256];
  const int t = threadIdx.x;
  m[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s != 0; s /= 2) {
    if (t < s) {
      m[t] = min(m[t + s], m[t]);
    }
    __syncthreads();
  }
  out[blockIdx.x] = m[0];
}

// Any block size that is a multiple of 32 when the tree skips partners past
// the block (the tree starts at half the power of two >= blockDim.x); the
// array is refilled before the arg-max tree reads it again.
// CHECK-LABEL: __global__ void bounded_max(
// CHECK:        if (blockDim.x % 32 == 0 && blockDim.y * blockDim.z == 1 &&
// CHECK-NEXT:       2 * first >= blockDim.x && (first & (first - 1)) == 0) {
// CHECK:            warpValue2 = fmaxf(warpValue2, __shfl_xor_sync(0xffffffffu, warpValue2, laneOffset2));
__global__ void bounded_max(float *out, int *arg, const float *in, int n) {
  __shared__ float v[1024];
  __shared__ int idx[1024];
  int first = 1;
  while (first < (int)blockDim.x)
    first <<= 1;
  first >>= 1;
  const int e = threadIdx.x;
  const float x = e < n ? in[e] : -INFINITY;
  v[e] = x;
  __syncthreads();
  for (int s = first; s > 0; s >>= 1) {
    if (e < s && e + s < (int)blockDim.x)
      v[e] = fmaxf(v[e], v[e + s]);
    __syncthreads();
  }
  out[0] = v[0];
  __syncthreads();
  v[e] = x;
  idx[e] = e;
  __syncthreads();
  for (int s = first; s > 0; s >>= 1) {
    if (e < s && e + s < (int)blockDim.x) {
      if (v[e + s] > v[e]) {
        v[e] = v[e + s];
        idx[e] = idx[e + s];
      }
    }
    __syncthreads();
  }
  arg[0] = idx[0];
}

__global__ void leftovers(float *out, const float *in) {
  __shared__ float buf[512];
  buf[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  out[threadIdx.x] = buf[threadIdx.x] + buf[0];
}

__global__ void no_barrier(float *out, const float *in) {
  __shared__ float buf[512];
  buf[threadIdx.x] = in[threadIdx.x];
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  out[0] = buf[0];
}

__global__ void product(double *out, const double *in) {
  __shared__ double buf[512];
  buf[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] *= buf[threadIdx.x + s];
    __syncthreads();
  }
  out[0] = buf[0];
}

__global__ void halves(__half *out, const __half *in) {
  __shared__ __half buf[512];
  buf[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = buf[threadIdx.x] + buf[threadIdx.x + s];
    __syncthreads();
  }
  out[0] = buf[0];
}

// PTX: .entry _Z8sum_treePfPKfi(
// PTX:   shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX:   bar.sync 0;
// PTX:   shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX: .entry _Z7min_intPiPKi(
// PTX:   min.s32

// DOWN: .entry _Z7min_intPiPKi(
// DOWN: shfl.sync.down.b32 {{.*}}, 16, 31, -1;

// LIST: warp-reduce.cu:[[SUM:[0-9]+]]:3: warp-reduce sum_tree sum_tree:L1: applies: sum of 'buf' (float) by __shfl_xor_sync (full mask) + one shared stage; guard: blockDim.x % 32 == 0 && blockDim.y * blockDim.z == 1 && 2 * (blockDim.x >> 1) == blockDim.x && ((blockDim.x >> 1) & ((blockDim.x >> 1) - 1)) == 0; fallback: the tree
// LIST: warp-reduce min_int min_int:L0: applies: min of 'm' (int) by __shfl_xor_sync
// LIST: warp-reduce bounded_max bounded_max:L1: applies: max of 'v' (float)
// LIST: warp-reduce bounded_max bounded_max:L2: applies: the tree over 'v' (float), 'idx' (int) by __shfl_down_sync in the original's pairs and order (lane l of warp w holds node l * warps + w; bit-exact) + one shared stage; guard: blockDim.x % 32 == 0 && blockDim.y * blockDim.z == 1 && 2 * first == blockDim.x && ((blockDim.x / 32) & (blockDim.x / 32 - 1)) == 0; fallback: the tree
// LIST: warp-reduce leftovers leftovers:L0: does not apply: line {{[0-9]+}} reads buf[threadIdx.x] after a tree without refilling the array first; the rewritten tree leaves only buf[0] as the original does
// LIST: warp-reduce no_barrier no_barrier:L0: does not apply: no __syncthreads() right before the tree
// LIST: warp-reduce product product:L0: applies: the tree over 'buf' (double) by __shfl_down_sync in the original's pairs and order
// LIST: warp-reduce halves halves:L0: does not apply: 'buf' is not an array of 32- or 64-bit integers or floats (what warp shuffles move)
// LIST: warp-reduce:shuffle=down sum_tree sum_tree:L1: applies: sum of 'buf' (float) by __shfl_down_sync

// A float sum is regrouped, but not in the original's order (shuffle=tree);
// an int min is exact. A tree that only the tuple form takes is one option.
// OPTS: warp-reduce.cu:{{[0-9]+}}:3: warp-reduce:loop=sum_tree:L1: sum of 'buf' {{.*}}; fallback: the tree [changes rounding]
// OPTS-NEXT: warp-reduce.cu:{{[0-9]+}}:3: warp-reduce:loop=sum_tree:L1,shuffle=down: sum
// OPTS-NEXT: warp-reduce.cu:{{[0-9]+}}:3: warp-reduce:loop=sum_tree:L1,shuffle=tree: the tree over 'buf' (float) {{.*}}; fallback: the tree{{$}}
// OPTS-NEXT: warp-reduce.cu:{{[0-9]+}}:3: warp-reduce:loop=min_int:L0: min of 'm' (int) {{.*}}; fallback: the tree{{$}}
// OPTS: warp-reduce.cu:{{[0-9]+}}:3: warp-reduce:loop=bounded_max:L2: the tree over 'v' (float), 'idx' (int)
// OPTS-NOT: warp-reduce:loop=bounded_max:L2,shuffle=
// OPTS: warp-reduce.cu:{{[0-9]+}}:3: warp-reduce:loop=product:L0: the tree over 'buf' (double)
// OPTS-NOT: warp-reduce:loop=product:L0,shuffle=
