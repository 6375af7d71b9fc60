// fold-blocks: a block's rows (threadIdx.y) become consecutive blocks of the
// original grid, with the grid's bound from bound= or from the kernel's own
// guard; under the original launch (block.y = 1) the kernel is unchanged.
// The launch rewrite folds only a folded kernel, and writes the contract.
// Refusals: a 2-D block, shared memory, barriers, warp shuffles, gridDim of
// the folded dimension, a device function reading blockIdx, no bound, a bad
// bound.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=fold-blocks:kernel=per_head,dim=y,bound=heads %s | FileCheck %s --check-prefix=HEAD
// RUN: %astra-opt --apply=fold-blocks:kernel=per_row,dim=x %s | FileCheck %s --check-prefix=ROW
// RUN: %astra-opt --apply=fold-blocks:kernel=per_head,dim=y,bound=heads --apply=launch:kernel=per_head,fold-y=8 %s 2> %t.warn | FileCheck %s --check-prefix=HEAD
// RUN: FileCheck %s --check-prefix=WARN < %t.warn
// RUN: %astra-opt --apply=fold-blocks:kernel=per_head,dim=y,bound=heads --emit-ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: not %astra-opt --apply=launch:kernel=per_head,fold-y=8 %s 2>&1 | FileCheck %s --check-prefix=UNFOLDED
// RUN: not %astra-opt --apply=fold-blocks:kernel=per_head,dim=y,bound=scale %s 2>&1 | FileCheck %s --check-prefix=BADBOUND
// RUN: not %astra-opt --apply=fold-blocks:kernel=per_head,dim=y,bound=2x %s 2>&1 | FileCheck %s --check-prefix=BADNAME
// RUN: not %astra-opt --apply=fold-blocks:kernel=per_head,dim=y %s 2>&1 | FileCheck %s --check-prefix=NOBOUND
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s --check-prefix=LIST

#include <cuda_runtime.h>

// One block per (token, head), threads along the head's elements; no guard
// on the head: the grid's y extent is `heads`.
__global__ void per_head(float *out, const float *in, const float *scale,
                         int tokens, int heads, int d) {
  const int t = blockIdx.x;
  const int h = blockIdx.y;
  float s = scale[h * tokens + t];
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[((size_t)t * heads + h) * d + i] = in[((size_t)t * heads + h) * d + i] * s;
}

// HEAD: __global__ void per_head(
// HEAD-NEXT: int tokens, int heads, int d) {
// HEAD-NEXT: // astra-opt fold-blocks: blockIdx.y -> blockIdx.y * blockDim.y + threadIdx.y (the rows of a block are blocks of the original grid; under the original launch, block.y = 1, it is blockIdx.y)
// HEAD-NEXT: const unsigned int foldY = blockIdx.y * blockDim.y + threadIdx.y;
// HEAD-NEXT: if (foldY >= static_cast<unsigned int>(heads)) return;
// HEAD-NEXT: const int t = blockIdx.x;
// HEAD-NEXT: const int h = foldY;
// WARN: warning: {{.*}}the launch at {{[0-9]+}}:{{[0-9]+}} must fold the grid into block.y: change it by hand
// PTX: .visible .entry _Z8per_headPfPKfS1_iii(
// PTX: mov.u32 %r{{[0-9]+}}, %tid.y;
// UNFOLDED: folding the grid's y blocks into the block's rows needs a kernel whose rows take blocks of the grid: apply fold-blocks:dim=y first
// BADBOUND: bound=scale is not an integer parameter of per_head
// BADNAME: parameter 'bound' must be an identifier, got '2x'
// NOBOUND: the folded index needs a bound: no `if (v >= n) return;` on blockIdx.y before anything else; give bound=<the integer parameter holding the grid's y extent>

// A row per block with its own guard: the bound needs no parameter.
__global__ void per_row(float *out, const int *ptr, const float *x, int rows,
                        int f) {
  const int r = blockIdx.x;
  if (r >= rows) return;
  const int b = ptr[r], e = ptr[r + 1];
  for (int j = threadIdx.x; j < f; j += blockDim.x) {
    float s = 0.0f;
    for (int k = b; k < e; ++k)
      s += x[(size_t)k * f + j];
    out[(size_t)r * f + j] = s;
  }
}

// ROW: const unsigned int foldX = blockIdx.x * blockDim.y + threadIdx.y;
// ROW-NEXT: const int r = foldX;
// ROW-NEXT: if (r >= rows) return;

// A guard after a memory read is not the kernel's bound: the read would run
// on rows past the end.
__global__ void read_first(float *out, const int *ptr, int rows) {
  const int r = blockIdx.x;
  const int b = ptr[r];
  if (r >= rows) return;
  out[r] = b;
}

__global__ void two_d(float *out, int n) {
  out[blockIdx.x * blockDim.y + threadIdx.y] = 1.0f;
}

__global__ void shared_tree(float *out, const float *in, int n) {
  __shared__ float part[256];
  part[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0] + part[1];
}

__global__ void shuffles(float *out, const float *in, int n) {
  float v = in[blockIdx.x * 32 + threadIdx.x];
  v += __shfl_down_sync(0xffffffffu, v, 1);
  out[blockIdx.x * 32 + threadIdx.x] = v;
}

__global__ void grid_stride(float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = 0.0f;
}

__device__ int row_of() { return blockIdx.x; }
__global__ void through_callee(float *out, int n) {
  if (blockIdx.x >= n) return;
  out[row_of()] = 1.0f;
}

// A built-in read as a whole, a preprocessor conditional, a constructor of
// this file, a function defined elsewhere, a bound that reads the index.
__global__ void whole(float *out, int n) {
  uint3 b = blockIdx;
  if (b.x >= n) return;
  out[b.x] = 1.0f;
}
__global__ void with_if(float *out, int n) {
  const int r = blockIdx.x;
  if (r >= n) return;
#if 1
  out[r] = 1.0f;
#endif
}
struct RowOf {
  int r;
  __device__ RowOf() : r(blockIdx.x) {}
};
__global__ void by_ctor(float *out, int n) {
  if (blockIdx.x >= n) return;
  RowOf R;
  out[R.r] = 1.0f;
}
__device__ int ext_row();
__global__ void by_extern(float *out, int n) {
  if (blockIdx.x >= n) return;
  out[blockIdx.x + ext_row()] = 1.0f;
}
__global__ void bound_reads_index(float *out, int n) {
  const int r = blockIdx.x;
  const int lim = r + n;
  if (r >= lim) return;
  out[r] = 1.0f;
}

// LIST-DAG: fold-blocks:dim=x whole: does not apply: {{.*}}it reads blockIdx as a whole (only .x, .y, .z are followed)
// LIST-DAG: fold-blocks:dim=x with_if: does not apply: {{.*}}its body holds a preprocessor conditional
// LIST-DAG: fold-blocks:dim=x by_ctor: does not apply: {{.*}}a device function it calls reads blockIdx.x (only the kernel's body is rewritten) [RowOf::RowOf]
// LIST-DAG: fold-blocks:dim=x by_extern: does not apply: {{.*}}it calls ext_row, defined outside this file
// LIST-DAG: fold-blocks:dim=x bound_reads_index: does not apply: {{.*}}the folded index needs a bound
// LIST-DAG: fold-blocks:dim=x per_row: applies: fold-blocks of per_row (blockIdx.x): 1 use read foldX = blockIdx.x * blockDim.y + threadIdx.y; bound from the kernel's guard at {{[0-9]+}}:3
// LIST-DAG: fold-blocks:dim=x read_first: does not apply: {{.*}}the folded index needs a bound
// LIST-DAG: fold-blocks:dim=x two_d: does not apply: {{.*}}it reads blockDim.y: its block is not one row of threads along x
// LIST-DAG: fold-blocks:dim=x shared_tree: does not apply: {{.*}}it declares the shared array 'part', which a block's rows would share
// LIST-DAG: fold-blocks:dim=x shuffles: does not apply: {{.*}}it calls __shfl_down_sync, which a block's rows would share
// LIST-DAG: fold-blocks:dim=x grid_stride: does not apply: {{.*}}it reads gridDim.x, which a folded launch changes
// LIST-DAG: fold-blocks:dim=x through_callee: does not apply: {{.*}}a device function it calls reads blockIdx.x (only the kernel's body is rewritten)

void launch(float *out, const float *in, const float *scale, int tokens,
            int heads, int d) {
  per_head<<<dim3(tokens, heads), d>>>(out, in, scale, tokens, heads, d);
}
