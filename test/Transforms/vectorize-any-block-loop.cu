// REQUIRES: cuda-headers
// vectorize-loads' any-grid form at a block-stride loop (`loop=`,
// `for (f = threadIdx.x; f < n; f += blockDim.x)`): the loop covers every
// element for any block already, so its form is the plain loop form with
// packs only where the block does not cover the loop in one step, marked as
// the any-block form so that launch:block-x-div may shrink the block
// (segment_mean_csr's block of feat_dim threads: a pack per thread leaves
// three of four threads idle). The code, the PTX, the launch accepted and
// refused, and what the rest of the kernel must be for any block size.
//
// RUN: %astra-opt --apply=vectorize-loads:loop=segment_mean_csr:L0,any-grid=1 %kernels/segment_mean_csr.cu | FileCheck %s --check-prefix=SEG
// RUN: %astra-opt --apply=vectorize-loads:loop=segment_mean_csr:L0,any-grid=1 --apply=launch:kernel=segment_mean_csr,block-x-div=4 --emit-ptx %kernels/segment_mean_csr.cu -o %t.seg.ptx
// RUN: FileCheck %s --check-prefix=SEG-PTX < %t.seg.ptx
// The launch applies and leaves the source as the form wrote it (the new
// block goes to the plan); folded rows too.
// RUN: %astra-opt --apply=vectorize-loads:loop=segment_mean_csr:L0,any-grid=1 --apply=launch:kernel=segment_mean_csr,block-x-div=4 %kernels/segment_mean_csr.cu -o %t.seg.cu 2> %t.seg.err
// RUN: FileCheck %s --check-prefix=NO-DIAG --allow-empty < %t.seg.err
// RUN: %astra-opt --apply=vectorize-loads:loop=segment_mean_csr:L0,any-grid=1 %kernels/segment_mean_csr.cu -o %t.any.cu
// RUN: cmp %t.seg.cu %t.any.cu
// RUN: %astra-opt --apply=vectorize-loads:loop=segment_mean_csr:L0,any-grid=1 --apply=fold-blocks:kernel=segment_mean_csr,dim=x --apply=launch:kernel=segment_mean_csr,block-x-div=4,fold-x=4 %kernels/segment_mean_csr.cu -o %t.fold.cu 2> %t.fold.err
// RUN: FileCheck %s --check-prefix=NO-DIAG --allow-empty < %t.fold.err
// The grid indexes rows: it is not divided.
// RUN: not %astra-opt --apply=vectorize-loads:loop=segment_mean_csr:L0,any-grid=1 --apply=launch:kernel=segment_mean_csr,grid-x-div=4 %kernels/segment_mean_csr.cu 2>&1 | FileCheck %s --check-prefix=GRID
// The default loop form is not marked: its block stays.
// RUN: not %astra-opt --apply=vectorize-loads:loop=segment_mean_csr:L0 --apply=launch:kernel=segment_mean_csr,block-x-div=4 %kernels/segment_mean_csr.cu 2>&1 | FileCheck %s --check-prefix=NOANY
// sage_mean_concat's loop stores `out` at two offsets feat_dim apart (the
// apart form), 8-byte packs.
// RUN: %astra-opt --apply=vectorize-loads:loop=sage_mean_concat:L0,any-grid=1,width=8 --apply=launch:kernel=sage_mean_concat,block-x-div=2 %kernels/sage_mean_concat.cu | FileCheck %s --check-prefix=SAGE
// The options: the loop's site says its block may shrink.
// RUN: %astra-opt --list-options --json %kernels/segment_mean_csr.cu | FileCheck %s --check-prefix=OPTION
//
// Kernels of this file: the refusals, and what is allowed around the loop.
// RUN: %astra-opt --apply=vectorize-loads:loop=loop_tid0:L0,any-grid=1 %s | FileCheck %s --check-prefix=TID0
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_dim:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=DIM
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_tid:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=TID
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_tidx:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=TIDX
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_all:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_nested:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_grid:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=GRIDSTRIDE
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_y:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=LOOPY
// The default form of each still applies where the loop does; a body that
// depends on the thread is refused by the default form too (its packs hand
// elements to other threads).
// RUN: %astra-opt --apply=vectorize-loads:loop=loop_all:L0 %s | FileCheck %s --check-prefix=ALL-DEFAULT
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_tidx:L0 %s 2>&1 | FileCheck %s --check-prefix=TIDX
// Found by review: each of these was accepted, and computed other outputs
// under a smaller block or, run without any-grid=1, with packs at all (the
// packs hand elements to other threads).
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_early:L0 %s 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_count:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_sync_count:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=SYNCCOUNT
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_call_write:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=CALLWRITE
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_dim3:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=DIM3
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_uint3:L0 %s 2>&1 | FileCheck %s --check-prefix=UINT3
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_devfn:L0 %s 2>&1 | FileCheck %s --check-prefix=DEVFN
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_devfn_dim:L0,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=DEVFNDIM
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_asm:L0 %s 2>&1 | FileCheck %s --check-prefix=ASM
// RUN: not %astra-opt --apply=vectorize-loads:loop=loop_array:L0 %s 2>&1 | FileCheck %s --check-prefix=ARRAY

// SEG:      const int deg = end - begin;
// SEG-EMPTY:
// SEG-NEXT: // astra-opt vectorize-loads: any block (every element below the bound, block-stride; the grid stays)
// SEG-NEXT: if (static_cast<int>(blockDim.x) < feat_dim &&
// SEG-NEXT:     reinterpret_cast<size_t>(x) % 16 == 0 &&
// SEG:      feat_dim % 4 == 0) {
// SEG:      for (int vecIdx = threadIdx.x; vecIdx < feat_dim / VecW;
// SEG-NEXT:      vecIdx += blockDim.x) {
// SEG:      } else {
// SEG-NEXT:   for (int f = threadIdx.x; f < feat_dim; f += blockDim.x) {

// SEG-PTX: .entry {{.*}}segment_mean_csr
// SEG-PTX-DAG: ld.global.v4.{{[bf]}}32
// SEG-PTX-DAG: st.global.v4.{{[bf]}}32

// NO-DIAG-NOT: {{error|warning}}

// GRID: note: launch of segment_mean_csr: the grid cannot be divided

// NOANY: note: launch of segment_mean_csr: dividing the grid or the block needs a kernel whose threads cover every element for any grid

// SAGE: // astra-opt vectorize-loads: any block (every element below the bound, block-stride; the grid stays)
// SAGE-NEXT: if (static_cast<int>(blockDim.x) < feat_dim &&

// OPTION:      "any_grid": {
// OPTION-NEXT:   "block_dim": "x",
// OPTION-NEXT:   "block_only": true,
// OPTION-NEXT:   "extent": "feat_dim",
// OPTION-NEXT:   "grid_dim": null
// OPTION-NEXT: },
// OPTION-NEXT: "apply": "vectorize-loads:loop=segment_mean_csr:L0",

// TID0: // astra-opt vectorize-loads: any block
// TID0: if (threadIdx.x == 0)
// TID0-NEXT: tag[r] = 1.0f;

// DIM: note: loop loop_dim:L0: the kernel reads blockDim.x outside the loop's step, and a smaller block changes its value
// TID: note: loop loop_tid:L0: the loop's body reads 'lane', which depends on the thread other than through the loop's variable: each pack's elements go to another thread
// TIDX: note: loop loop_tidx:L0: the loop's body reads threadIdx.x: each pack's elements go to another thread
// ALL: note: loop loop_all:L0: 'tag' is written outside the per-element statements, and not only on thread 0 (`if (threadIdx.x == 0)`): a smaller block would leave the writes of its missing threads out
// ALL-DEFAULT: // astra-opt vectorize-loads: 16-byte accesses
// NESTED: note: loop loop_nested:L0: the loop is not a statement of the kernel's body (it sits in a branch or another loop)
// GRIDSTRIDE: note: loop loop_grid:L0: any-grid=1 at a loop applies to block-stride loops only (threadIdx.x and blockDim.x)
// EARLY: note: loop loop_early:L0: a return before the loop depends on the thread: the threads that leave would leave packs that are theirs in the rewrite
// COUNT: note: loop loop_count:L0: line {{[0-9:]+}} uses 'n', which the loop at line {{[0-9:]+}} leaves per thread
// SYNCCOUNT: note: loop loop_sync_count:L0: a statement outside the per-element ones calls __syncthreads_count, which a smaller block may leave without a full warp
// CALLWRITE: note: loop loop_call_write:L0: 'tag' is written outside the per-element statements, and not only on thread 0
// DIM3: note: loop loop_dim3:L0: the kernel reads blockDim.x outside the loop's step
// UINT3: note: loop loop_uint3:L0: the loop's body reads 't', a local array or structure from before the loop
// DEVFN: note: loop loop_devfn:L0: the loop's body calls tid, which reads the thread's or block's index or size
// DEVFNDIM: note: loop loop_devfn_dim:L0: the kernel calls block_size, which reads the thread's or block's index or size
// ASM: note: loop loop_asm:L0: the kernel holds inline assembly, which may read the thread's index
// ARRAY: note: loop loop_array:L0: the loop's body reads 'loc', a local array or structure from before the loop
// LOOPY: note: loop loop_y:L0: the loop strides over blockDim.y; only the block's x extent is divided

#include <cuda_runtime.h>

// A write on thread 0 only, after the loop: thread 0 exists in any block.
__global__ void loop_tid0(float *out, float *tag, const float *x, int f) {
  const int r = blockIdx.x;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * 2.0f;
  if (threadIdx.x == 0)
    tag[r] = 1.0f;
}

// blockDim.x read outside the loop's step.
__global__ void loop_dim(float *out, const float *x, int f) {
  const int r = blockIdx.x;
  const float share = 1.0f / blockDim.x;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * share;
}

// The body uses the thread's index other than through the loop's variable.
__global__ void loop_tid(float *out, const float *x, int f) {
  const int r = blockIdx.x;
  const int lane = threadIdx.x % 32;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] + lane;
}

// The body reads threadIdx.x itself.
__global__ void loop_tidx(float *out, const float *x, int f) {
  const int r = blockIdx.x;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] + threadIdx.x;
}

// Every thread writes around the loop.
__global__ void loop_all(float *out, float *tag, const float *x, int f) {
  const int r = blockIdx.x;
  tag[r] = 1.0f;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * 2.0f;
}

// The loop sits in a branch.
__global__ void loop_nested(float *out, const float *x, int f, int rows) {
  const int r = blockIdx.x;
  if (r < rows) {
    for (int c = threadIdx.x; c < f; c += blockDim.x)
      out[r * f + c] = x[r * f + c] * 2.0f;
  }
}

// A grid-stride loop.
__global__ void loop_grid(float *out, const float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = x[i] * 2.0f;
}

// A block-stride loop over the block's y extent.
__global__ void loop_y(float *out, const float *x, int f) {
  const int r = blockIdx.x;
  for (int c = threadIdx.y; c < f; c += blockDim.y)
    out[r * f + c] = x[r * f + c] * 2.0f;
}

// A return before the loop that depends on the thread.
__global__ void loop_early(float *out, const float *x, int f) {
  const int r = blockIdx.x;
  if (threadIdx.x >= 64)
    return;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * 2.0f;
}

// A count carried out of the loop.
__global__ void loop_count(float *out, float *tag, const float *x, int f) {
  const int r = blockIdx.x;
  int n = 0;
  for (int c = threadIdx.x; c < f; c += blockDim.x) {
    out[r * f + c] = x[r * f + c] * 2.0f;
    n += 1;
  }
  if (threadIdx.x == 0)
    tag[r] = n;
}

// A barrier that counts the block's threads.
__global__ void loop_sync_count(float *out, float *tag, const float *x,
                                int f) {
  const int r = blockIdx.x;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * 2.0f;
  const int cnt = __syncthreads_count(1);
  if (threadIdx.x == 0)
    tag[r] = cnt;
}

// A write through a called function, on every thread.
__device__ void put(float *p, float v) { *p = v; }
__global__ void loop_call_write(float *out, float *tag, const float *x,
                                int f) {
  const int r = blockIdx.x;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * 2.0f;
  put(tag + r * 1024 + threadIdx.x, 1.0f);
}

// blockDim copied whole.
__global__ void loop_dim3(float *out, float *tag, const float *x, int f) {
  const int r = blockIdx.x;
  const dim3 b = blockDim;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * 2.0f;
  if (threadIdx.x == 0)
    tag[r] = b.x;
}

// threadIdx copied whole, read in the body.
__global__ void loop_uint3(float *out, const float *x, int f) {
  const int r = blockIdx.x;
  const uint3 t = threadIdx;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * t.x;
}

// The thread's index through a device function.
__device__ float tid() { return threadIdx.x; }
__global__ void loop_devfn(float *out, const float *x, int f) {
  const int r = blockIdx.x;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * tid();
}

// The block's size through a device function.
__device__ float block_size() { return blockDim.x; }
__global__ void loop_devfn_dim(float *out, float *tag, const float *x,
                               int f) {
  const int r = blockIdx.x;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * 2.0f;
  if (threadIdx.x == 0)
    tag[r] = block_size();
}

// The thread's index through inline assembly.
__global__ void loop_asm(float *out, const float *x, int f) {
  const int r = blockIdx.x;
  for (int c = threadIdx.x; c < f; c += blockDim.x) {
    unsigned t;
    asm("mov.u32 %0, %%tid.x;" : "=r"(t));
    out[r * f + c] = x[r * f + c] * t;
  }
}

// A local array written from the thread's index, read in the body.
__global__ void loop_array(float *out, const float *x, int f) {
  const int r = blockIdx.x;
  float loc[2];
  loc[0] = threadIdx.x;
  loc[1] = 1.0f;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    out[r * f + c] = x[r * f + c] * loc[0];
}
