// warp-reduce's tuple form: a tree whose step is any code over a[tid] and
// a[tid + s] of one or more __shared__ arrays (an arg-max, a pair of 64-bit
// values) runs as shuffles in the original's pairs and order; every refusal
// with its reason; the rewritten file compiles to PTX with full-mask
// shuffles down.
// REQUIRES: cuda-headers
// RUN: %astra-opt --apply=warp-reduce %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=warp-reduce:shuffle=tree,loop=plain_sum:L0 %s | FileCheck %s --check-prefix=SUM
// RUN: %astra-opt --list-options %s | FileCheck %s --check-prefix=OPTS

#include <cuda_fp16.h>

// CHECK-LABEL: __global__ void argmax(
// CHECK:        __syncthreads();
// CHECK-NEXT:   if (blockDim.x % 32 == 0 && blockDim.y * blockDim.z == 1 &&
// CHECK-NEXT:       2 * (blockDim.x / 2) == blockDim.x &&
// CHECK-NEXT:       ((blockDim.x / 32) & (blockDim.x / 32 - 1)) == 0) {
// CHECK-NEXT:     // astra-opt warp-reduce: the tree over val, idx by warp shuffles, its pairs in the original's order (lane l of warp w holds node l * warps + w); the tree is the fallback.
// CHECK-NEXT:     __shared__ float treePartial[32];
// CHECK-NEXT:     __shared__ int treePartial1[32];
// CHECK-NEXT:     const unsigned treeWarps = blockDim.x / 32;
// CHECK-NEXT:     const unsigned treeLane = threadIdx.x % 32;
// CHECK-NEXT:     float treeOwn = val[treeLane * treeWarps + threadIdx.x / 32];
// CHECK-NEXT:     int treeOwn1 = idx[treeLane * treeWarps + threadIdx.x / 32];
// CHECK-NEXT:     #pragma unroll
// CHECK-NEXT:     for (unsigned treeOffset = 16; treeOffset > 0; treeOffset >>= 1) {
// CHECK-NEXT:       const float treePartner = __shfl_down_sync(0xffffffffu, treeOwn, treeOffset);
// CHECK-NEXT:       const int treePartner1 = __shfl_down_sync(0xffffffffu, treeOwn1, treeOffset);
// CHECK-NEXT:       if (treeLane < treeOffset) {
// CHECK-NEXT:         const float a = treeOwn, b = treePartner;
// CHECK-NEXT:         if (b > a || (b == a && treePartner1 < treeOwn1)) {
// CHECK-NEXT:           treeOwn = b;
// CHECK-NEXT:           treeOwn1 = treePartner1;
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     if (treeLane == 0) {
// CHECK-NEXT:       treePartial[threadIdx.x / 32] = treeOwn;
// CHECK-NEXT:       treePartial1[threadIdx.x / 32] = treeOwn1;
// CHECK-NEXT:     }
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:     if (threadIdx.x < 32) {
// CHECK-NEXT:       treeOwn = treePartial[treeLane < treeWarps ? treeLane : 0];
// CHECK-NEXT:       treeOwn1 = treePartial1[treeLane < treeWarps ? treeLane : 0];
// CHECK-NEXT:       for (unsigned treeOffset = treeWarps / 2; treeOffset > 0;
// CHECK-NEXT:            treeOffset >>= 1) {
// CHECK-NEXT:         const float treePartner = __shfl_down_sync(0xffffffffu, treeOwn, treeOffset);
// CHECK-NEXT:         const int treePartner1 = __shfl_down_sync(0xffffffffu, treeOwn1, treeOffset);
// CHECK-NEXT:         if (treeLane < treeOffset) {
// CHECK-NEXT:           const float a = treeOwn, b = treePartner;
// CHECK:              if (threadIdx.x == 0) {
// CHECK-NEXT:         val[0] = treeOwn;
// CHECK-NEXT:         idx[0] = treeOwn1;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:   } else {
// CHECK-NEXT:     for (int s = blockDim.x / 2; s > 0; s >>= 1) {
// CHECK-NEXT:       if (threadIdx.x < s) {
// CHECK-NEXT:         const float a = val[threadIdx.x], b = val[threadIdx.x + s];
// CHECK:          __syncthreads();
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   if (threadIdx.x == 0)
// CHECK-NEXT:     arg[blockIdx.x] = idx[0];
__global__ void argmax(int *arg, const float *x) {
  __shared__ float val[1024];
  __shared__ int idx[1024];
  val[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  idx[threadIdx.x] = threadIdx.x;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const float a = val[threadIdx.x], b = val[threadIdx.x + s];
      if (b > a || (b == a && idx[threadIdx.x + s] < idx[threadIdx.x])) {
        val[threadIdx.x] = b;
        idx[threadIdx.x] = idx[threadIdx.x + s];
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    arg[blockIdx.x] = idx[0];
}

// A (sum, count) pair of 64-bit elements, a local copy of threadIdx.x as
// tid, a parameter and a block-uniform local read in the step: only the
// arrays the step stores are written back.
// CHECK-LABEL: __global__ void mean_pair(
// CHECK:          double treeOwn = sum[treeLane * treeWarps + threadIdx.x / 32];
// CHECK-NEXT:     double treeOwn1 = w[treeLane * treeWarps + threadIdx.x / 32];
// CHECK-NEXT:     long long treeOwn2 = cnt[treeLane * treeWarps + threadIdx.x / 32];
// CHECK:            treeOwn += scale * treePartner * treePartner1;
// CHECK-NEXT:       treeOwn2 += treePartner2 + bias;
// CHECK:          if (threadIdx.x == 0) {
// CHECK-NEXT:       sum[0] = treeOwn;
// CHECK-NEXT:       cnt[0] = treeOwn2;
// CHECK-NEXT:     }
__global__ void mean_pair(double *out, const double *x, long long bias) {
  __shared__ double sum[256];
  __shared__ long long cnt[256];
  __shared__ double w[256];
  const int tid = threadIdx.x;
  const double scale = 2.0 * gridDim.x;
  sum[tid] = x[blockIdx.x * blockDim.x + tid];
  cnt[tid] = 1;
  w[tid] = 0.5;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sum[tid] += scale * sum[tid + s] * w[tid + s];
      cnt[tid] += cnt[tid + s] + bias;
    }
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sum[0] / cnt[0];
}

// A plain sum in the original's order (shuffle=tree): bit-exact, so not
// marked as changing rounding.
// SUM-LABEL: __global__ void plain_sum(
// SUM:          float treeOwn = buf[treeLane * treeWarps + threadIdx.x / 32];
// SUM:            if (treeLane < treeOffset) {
// SUM-NEXT:         treeOwn += treePartner;
// SUM-NEXT:       }
__global__ void plain_sum(float *out, const float *x) {
  __shared__ float buf[512];
  buf[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  out[0] = buf[0];
}

__device__ float combine(float a, float b) { return a > b ? a : b; }

#define TREE_HEAD                                                            \
  __shared__ float val[512];                                                 \
  __shared__ int idx[512];                                                   \
  val[threadIdx.x] = x[threadIdx.x];                                         \
  idx[threadIdx.x] = threadIdx.x;                                            \
  __syncthreads();

__global__ void reads_tid(int *arg, const float *x) {
  TREE_HEAD
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      if (val[threadIdx.x + s] > val[threadIdx.x] && threadIdx.x % 2 == 0) {
        val[threadIdx.x] = val[threadIdx.x + s];
        idx[threadIdx.x] = idx[threadIdx.x + s];
      }
    }
    __syncthreads();
  }
  arg[0] = idx[0];
}

__global__ void stores_partner(int *arg, const float *x) {
  TREE_HEAD
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      if (val[threadIdx.x + s] > val[threadIdx.x]) {
        val[threadIdx.x] = val[threadIdx.x + s];
        idx[threadIdx.x + s] = -1;
      }
    }
    __syncthreads();
  }
  arg[0] = idx[0];
}

__global__ void counts_outside(int *arg, const float *x) {
  int swaps = 0;
  TREE_HEAD
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      if (val[threadIdx.x + s] > val[threadIdx.x]) {
        val[threadIdx.x] = val[threadIdx.x + s];
        idx[threadIdx.x] = idx[threadIdx.x + s];
        ++swaps;
      }
    }
    __syncthreads();
  }
  arg[0] = idx[0] + swaps;
}

__global__ void user_call(int *arg, const float *x) {
  TREE_HEAD
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      val[threadIdx.x] = combine(val[threadIdx.x], val[threadIdx.x + s]);
      idx[threadIdx.x] = idx[threadIdx.x + s];
    }
    __syncthreads();
  }
  arg[0] = idx[0];
}

__global__ void global_read(int *arg, const float *x, const float *wt) {
  TREE_HEAD
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      if (val[threadIdx.x + s] * wt[threadIdx.x] > val[threadIdx.x]) {
        val[threadIdx.x] = val[threadIdx.x + s];
        idx[threadIdx.x] = idx[threadIdx.x + s];
      }
    }
    __syncthreads();
  }
  arg[0] = idx[0];
}

__global__ void thread_local_value(int *arg, const float *x) {
  const float mine = x[threadIdx.x] * 0.5f;
  TREE_HEAD
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      if (val[threadIdx.x + s] > val[threadIdx.x] + mine) {
        val[threadIdx.x] = val[threadIdx.x + s];
        idx[threadIdx.x] = idx[threadIdx.x + s];
      }
    }
    __syncthreads();
  }
  arg[0] = idx[0];
}

__global__ void reads_partials(int *arg, const float *x) {
  TREE_HEAD
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      if (val[threadIdx.x + s] > val[threadIdx.x]) {
        val[threadIdx.x] = val[threadIdx.x + s];
        idx[threadIdx.x] = idx[threadIdx.x + s];
      }
    }
    __syncthreads();
  }
  arg[0] = idx[0] + idx[1];
}

__global__ void half_member(int *arg, const __half *x) {
  __shared__ __half hv[512];
  __shared__ int idx[512];
  hv[threadIdx.x] = x[threadIdx.x];
  idx[threadIdx.x] = threadIdx.x;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      if (hv[threadIdx.x + s] > hv[threadIdx.x]) {
        hv[threadIdx.x] = hv[threadIdx.x + s];
        idx[threadIdx.x] = idx[threadIdx.x + s];
      }
    }
    __syncthreads();
  }
  arg[0] = idx[0];
}

// The refused trees are left as they are.
// CHECK-LABEL: __global__ void reads_tid(
// CHECK-NOT:   treeOwn
// CHECK-LABEL: __global__ void half_member(
// CHECK-NOT:   treeOwn

// PTX: .entry _Z6argmaxPiPKf(
// PTX:   shfl.sync.down.b32 {{.*}}, 16, 31, -1;
// PTX: .entry _Z9mean_pairPdPKdx(
// PTX:   shfl.sync.down.b32

// LIST: warp-reduce argmax argmax:L0: applies: the tree over 'val' (float), 'idx' (int) by __shfl_down_sync in the original's pairs and order (lane l of warp w holds node l * warps + w; bit-exact) + one shared stage; guard: blockDim.x % 32 == 0 && blockDim.y * blockDim.z == 1 && 2 * (blockDim.x / 2) == blockDim.x && ((blockDim.x / 32) & (blockDim.x / 32 - 1)) == 0; fallback: the tree
// LIST: warp-reduce mean_pair mean_pair:L0: applies: the tree over 'sum' (double), 'w' (double), 'cnt' (long long)
// LIST: warp-reduce plain_sum plain_sum:L0: applies: sum of 'buf' (float) by __shfl_xor_sync
// LIST: warp-reduce reads_tid reads_tid:L0: does not apply: the tree step reads threadIdx.x outside a[tid] and a[tid + s]
// LIST: warp-reduce stores_partner stores_partner:L0: does not apply: the tree step stores the partner 'idx[threadIdx.x + s]' (only a[tid] may be stored)
// LIST: warp-reduce counts_outside counts_outside:L0: does not apply: the tree step writes 'swaps', declared outside it
// LIST: warp-reduce user_call user_call:L0: does not apply: the tree step calls 'combine' (only pure math functions)
// LIST: warp-reduce global_read global_read:L0: does not apply: 'wt' is not a __shared__ array
// LIST: warp-reduce thread_local_value thread_local_value:L0: does not apply: the tree step reads 'mine', which may differ between the threads (the rewritten tree runs node e's step in another thread than e)
// LIST: warp-reduce reads_partials reads_partials:L0: does not apply: line {{[0-9]+}} reads idx[1]
// LIST: warp-reduce half_member half_member:L0: does not apply: 'hv' is not an array of 32- or 64-bit integers or floats (what warp shuffles move)
// LIST: warp-reduce:shuffle=tree plain_sum plain_sum:L0: applies: the tree over 'buf' (float) by __shfl_down_sync in the original's pairs and order

// OPTS: warp-reduce:loop=argmax:L0: the tree over 'val' (float), 'idx' (int) {{.*}}; fallback: the tree{{$}}
// OPTS-NOT: warp-reduce:loop=argmax:L0,shuffle=
// OPTS: warp-reduce:loop=plain_sum:L0: sum of 'buf' (float) {{.*}} [changes rounding]
// OPTS: warp-reduce:loop=plain_sum:L0,shuffle=tree: the tree over 'buf' (float) {{.*}}; fallback: the tree{{$}}
