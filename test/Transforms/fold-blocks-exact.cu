// fold-blocks:exact=1: rows that share the block's barriers and take their
// own slice of each shared array; no bound guard (the launch folds only
// where K divides the extent, fold-exact=1). Refusals: a shared array of
// fewer than 1024 elements, an index that may reach past the row, a barrier
// under a condition that differs between rows, a return with barriers,
// exact with a bound, an exact fold launched without fold-exact; without
// exact=1, shared memory is refused as before. A tree over the row runs as
// xor shuffles where the rows are a power of two up to 32 threads in whole
// warps (the tree elsewhere); not where a later read sees another element
// than a[0] (another tree on the array included), nor for a tree that a
// loop runs again without refilling the array between runs.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=fold-blocks:kernel=tree,exact=1 %s | FileCheck %s --check-prefix=TREE
// RUN: %astra-opt --apply=fold-blocks:kernel=tree,exact=1 --apply=launch:kernel=tree,fold-y=4,fold-exact=1 %s 2>&1 | FileCheck %s --check-prefix=LAUNCH
// RUN: not %astra-opt --apply=fold-blocks:kernel=tree,exact=1 --apply=launch:kernel=tree,fold-y=4 %s 2>&1 | FileCheck %s --check-prefix=NOTEXACT
// RUN: not %astra-opt --apply=fold-blocks:kernel=tree %s 2>&1 | FileCheck %s --check-prefix=NOEXACT
// RUN: not %astra-opt --apply=fold-blocks:kernel=tree,exact=1,bound=n %s 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: not %astra-opt --apply=fold-blocks:kernel=small,exact=1 %s 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not %astra-opt --apply=fold-blocks:kernel=past_row,exact=1 %s 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: not %astra-opt --apply=fold-blocks:kernel=divergent,exact=1 %s 2>&1 | FileCheck %s --check-prefix=DIVERGENT
// RUN: not %astra-opt --apply=fold-blocks:kernel=by_memory,exact=1 %s 2>&1 | FileCheck %s --check-prefix=MEMORY
// RUN: not %astra-opt --apply=fold-blocks:kernel=returns,exact=1 %s 2>&1 | FileCheck %s --check-prefix=RETURNS
// RUN: not %astra-opt --apply=fold-blocks:kernel=escapes,exact=1 %s 2>&1 | FileCheck %s --check-prefix=ESCAPES
// RUN: not %astra-opt --apply=fold-blocks:kernel=breaks,exact=1 %s 2>&1 | FileCheck %s --check-prefix=BREAKS
// RUN: not %astra-opt --apply=fold-blocks:kernel=jumps,exact=1 %s 2>&1 | FileCheck %s --check-prefix=JUMPS
// RUN: not %astra-opt --apply=fold-blocks:kernel=in_lambda,exact=1 %s 2>&1 | FileCheck %s --check-prefix=LAMBDA
// RUN: %astra-opt --apply=fold-blocks:kernel=reads_all,exact=1 %s | FileCheck %s --check-prefix=READSALL
// RUN: %astra-opt --apply=fold-blocks:kernel=looped,exact=1 %s | FileCheck %s --check-prefix=LOOPED
// RUN: %astra-opt --apply=fold-blocks:kernel=two_trees,exact=1 %s | FileCheck %s --check-prefix=TWO
// RUN: %astra-opt --apply=fold-blocks:kernel=looped_refill,exact=1 %s | FileCheck %s --check-prefix=REFILL

#include <cuda_runtime.h>

// A row of n per block of n threads along y's blocks, summed by a tree.
__global__ void tree(float *out, const float *x, int n) {
  __shared__ float a[1024];
  const int r = blockIdx.y;
  a[threadIdx.x] = x[r * n + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[r] = a[0];
}

// TREE: // astra-opt fold-blocks: blockIdx.y -> blockIdx.y * blockDim.y + threadIdx.y (exact fold: rows share the block's barriers; the rows of a block are blocks of the original grid; under the original launch, block.y = 1, it is blockIdx.y)
// TREE-NEXT: const unsigned int foldY = blockIdx.y * blockDim.y + threadIdx.y;
// TREE-NEXT: __shared__ float a[1024];
// TREE-NEXT: const int r = foldY;
// TREE-NEXT: (a + threadIdx.y * blockDim.x)[threadIdx.x] = x[r * n + threadIdx.x];
// TREE-NEXT: __syncthreads();
// TREE-NEXT: if (blockDim.x <= 32 && (blockDim.x & (blockDim.x - 1)) == 0 &&
// TREE-NEXT: blockDim.x * blockDim.y % 32 == 0) {
// TREE-NEXT: // astra-opt fold-blocks: the row's tree by xor shuffles (rows of a power of two up to 32 threads never straddle a warp; the block is whole warps), paired as the tree pairs them; lane 0 stores the result, __syncwarp() shows it to the row
// TREE-NEXT: float foldTree = (a + threadIdx.y * blockDim.x)[threadIdx.x];
// TREE-NEXT: for (unsigned int foldLane = blockDim.x / 2; foldLane > 0; foldLane >>= 1)
// TREE-NEXT: foldTree = foldTree + __shfl_xor_sync(0xffffffffu, foldTree, foldLane);
// TREE-NEXT: if (threadIdx.x == 0)
// TREE-NEXT: (a + threadIdx.y * blockDim.x)[0] = foldTree;
// TREE-NEXT: __syncwarp();
// TREE-NEXT: } else
// TREE-NEXT: for (int s = blockDim.x / 2; s > 0; s >>= 1) {
// TREE: (a + threadIdx.y * blockDim.x)[threadIdx.x] += (a + threadIdx.y * blockDim.x)[threadIdx.x + s];
// TREE: out[r] = (a + threadIdx.y * blockDim.x)[0];
// LAUNCH: grid.y / 4 (rounded up) with block.y x 4 (4 blocks as the rows of one, only where 4 divides grid.y)
// NOTEXACT: the kernel was folded exactly (its rows share barriers and cannot return past a bound): add fold-exact=1
// NOEXACT: it declares the shared array 'a', which a block's rows would share
// BOUND: exact=1 takes no bound

__global__ void small(float *out, const float *x, int n) {
  __shared__ float a[256];
  a[threadIdx.x] = x[blockIdx.y * n + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.y] = a[0];
}
// SMALL: the shared array 'a' has 256 elements: fewer than a block's 1024 threads, so the rows' slices could overlap

__global__ void past_row(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.y * n + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 32)
    out[blockIdx.y * 32 + threadIdx.x] = a[threadIdx.x + 32];
}
// PAST: an index into the shared array 'a' may reach past the row

__global__ void divergent(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.y * n + threadIdx.x];
  if (blockIdx.y < n)
    __syncthreads();
  out[blockIdx.y * n + threadIdx.x] = a[0];
}
// DIVERGENT: a barrier the rows would share: the condition around it may differ between rows

__global__ void by_memory(float *out, const float *x, const int *flag, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.y * n + threadIdx.x];
  for (int k = 0; k < flag[0]; ++k)
    __syncthreads();
  out[blockIdx.y * n + threadIdx.x] = a[0];
}
// MEMORY: a barrier the rows would share: the loop around it does not step a counter of its own by values every row shares

__global__ void returns(float *out, const float *x, int n) {
  __shared__ float a[1024];
  if (blockIdx.y >= n)
    return;
  a[threadIdx.x] = x[blockIdx.y * n + threadIdx.x];
  __syncthreads();
  out[blockIdx.y * n + threadIdx.x] = a[0];
}
// RETURNS: it returns, and its rows share barriers

// From a review: the shared array's element address taken (row r's pointer
// would reach row r+1's slice), a break in the loop around a barrier, a
// goto, a barrier in a lambda called under a per-row condition.
__global__ void escapes(float *out, const float *x, int n) {
  __shared__ float a[1024];
  float *p = &a[0];
  p[threadIdx.x + n] = x[blockIdx.y * n + threadIdx.x];
  __syncthreads();
  out[blockIdx.y * n + threadIdx.x] = a[0];
}
// ESCAPES: the shared array 'a' is used other than by reading or writing an element (its address or a reference taken)
__global__ void breaks(float *out, const float *x, const int *len, int n) {
  __shared__ float a[1024];
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) {
    if (k >= len[blockIdx.y])
      break;
    a[threadIdx.x] = x[(blockIdx.y * n + k) * 32 + threadIdx.x];
    __syncthreads();
    acc += a[0];
    __syncthreads();
  }
  out[blockIdx.y * 32 + threadIdx.x] = acc;
}
// BREAKS: a barrier the rows would share: the loop around it holds a break or continue (rows could leave it at different iterations)
__global__ void jumps(float *out, const float *x, const int *flag) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.y * 32 + threadIdx.x];
  if (flag[blockIdx.y])
    goto done;
  __syncthreads();
  out[blockIdx.y * 32 + threadIdx.x] = a[0];
done:
  out[blockIdx.y] = 0.0f;
}
// JUMPS: it holds a goto, and its rows share barriers
__global__ void in_lambda(float *out, const float *x, const int *flag) {
  __shared__ float a[1024];
  auto sync = [] { __syncthreads(); };
  a[threadIdx.x] = x[blockIdx.y * 32 + threadIdx.x];
  if (flag[blockIdx.y])
    sync();
  out[blockIdx.y * 32 + threadIdx.x] = a[0];
}
// LAMBDA: a barrier the rows would share: it sits in a lambda or a local class (where it is called is not followed)

// After the tree, each thread reads its own element: the shuffles would
// leave it unreduced, so the tree stays.
__global__ void reads_all(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.y * n + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[blockIdx.y * n + threadIdx.x] = a[threadIdx.x];
}
// READSALL: __global__ void reads_all(
// READSALL-NEXT: {{^}}// astra-opt fold-blocks:
// READSALL-NEXT: {{^}}const unsigned int foldY{{[0-9]*}} =
// READSALL-NOT: __shfl_xor_sync
// READSALL: {{^ +}}out[foldY{{[0-9]*}} * n + threadIdx.x] = (a + threadIdx.y * blockDim.x)[threadIdx.x];


// A loop runs the tree again with no refill: its second run starts from the
// partial results the first left, which the shuffles would not leave.
__global__ void looped(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.y * n + threadIdx.x];
  for (int k = 0; k < 2; ++k) {
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s)
        a[threadIdx.x] += a[threadIdx.x + s];
      __syncthreads();
    }
  }
  if (threadIdx.x == 0)
    out[blockIdx.y] = a[0];
}
// LOOPED: __global__ void looped(
// LOOPED-NEXT: {{^}}// astra-opt fold-blocks:
// LOOPED-NOT: __shfl_xor_sync
// LOOPED: {{^ +}}out[foldY{{[0-9]*}}] = (a + threadIdx.y * blockDim.x)[0];

// Two trees on one array with no refill between: the second reads what the
// first left, so only the second runs as shuffles.
__global__ void two_trees(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.y * n + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] = fmaxf(a[threadIdx.x], a[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.y] = a[0];
}
// TWO: __global__ void two_trees(
// TWO-NOT: __shfl_xor_sync
// TWO: {{^ +}}(a + threadIdx.y * blockDim.x)[threadIdx.x] += (a + threadIdx.y * blockDim.x)[threadIdx.x + s];
// TWO-NOT: __shfl_xor_sync
// TWO: {{^ +}}foldTree{{[0-9]*}} = fmaxf(foldTree{{[0-9]*}}, __shfl_xor_sync(0xffffffffu, foldTree{{[0-9]*}}, foldLane{{[0-9]*}}));
// TWO: {{^ +}}out[foldY{{[0-9]*}}] = (a + threadIdx.y * blockDim.x)[0];

// A loop that refills the row before each run of its tree: the shuffles
// apply.
__global__ void looped_refill(float *out, const float *x, int n) {
  __shared__ float a[1024];
  for (int k = 0; k < 2; ++k) {
    a[threadIdx.x] = x[(blockIdx.y * 2 + k) * n + threadIdx.x];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s)
        a[threadIdx.x] += a[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0)
      out[blockIdx.y * 2 + k] = a[0];
    __syncthreads();
  }
}
// REFILL: __global__ void looped_refill(
// REFILL: {{^ +}}foldTree{{[0-9]*}} = foldTree{{[0-9]*}} + __shfl_xor_sync(0xffffffffu, foldTree{{[0-9]*}}, foldLane{{[0-9]*}});
// REFILL: {{^ +}}out[foldY{{[0-9]*}} * 2 + k] = (a + threadIdx.y * blockDim.x)[0];
