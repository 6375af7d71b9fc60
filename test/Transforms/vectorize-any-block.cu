// REQUIRES: cuda-headers
// vectorize-loads' any-grid form at a per-block index (`i = threadIdx.x`,
// one element per thread of a block, as in merge_attn_states): the any-block
// form. The block's threads stride over the row's packs, then over its tail,
// so that any block covers the row, and launch:block-x-div may shrink the
// block; the grid (which indexes tokens and heads) may not shrink. The code,
// the PTX, the launch accepted and refused, and what the statements around
// the element must be for any block size.
//
// merge_attn_states, then its block divided by the pack width (8 halves).
// RUN: %astra-opt --apply=vectorize-loads:kernel=merge_attn_states,any-grid=1 %kernels/merge_attn_states.cu | FileCheck %s --check-prefix=MERGE
// RUN: %astra-opt --apply=vectorize-loads:kernel=merge_attn_states,any-grid=1 --apply=launch:kernel=merge_attn_states,block-x-div=8 --emit-ptx %kernels/merge_attn_states.cu -o %t.merge.ptx
// RUN: FileCheck %s --check-prefix=MERGE-PTX < %t.merge.ptx
// The launch applies (nothing in the file encodes it: the source is the
// any-block form's, the new block goes to the plan and the report).
// RUN: %astra-opt --apply=vectorize-loads:kernel=merge_attn_states,any-grid=1 --apply=launch:kernel=merge_attn_states,block-x-div=8 %kernels/merge_attn_states.cu -o %t.merge.cu 2> %t.merge.err
// RUN: FileCheck %s --check-prefix=MERGE-LAUNCH --allow-empty < %t.merge.err
// RUN: %astra-opt --apply=vectorize-loads:kernel=merge_attn_states,any-grid=1 %kernels/merge_attn_states.cu -o %t.any.cu
// RUN: cmp %t.merge.cu %t.any.cu
// RUN: not %astra-opt --apply=vectorize-loads:kernel=merge_attn_states,any-grid=1 --apply=launch:kernel=merge_attn_states,grid-x-div=8 %kernels/merge_attn_states.cu 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not %astra-opt --apply=vectorize-loads:kernel=merge_attn_states,any-grid=1 --apply=launch:kernel=merge_attn_states,grid-x-div=4,block-x-div=2 %kernels/merge_attn_states.cu 2>&1 | FileCheck %s --check-prefix=GRID
// The default per-block form covers min(head_size, blockDim) elements only:
// its block may not shrink either.
// RUN: not %astra-opt --apply=vectorize-loads:kernel=merge_attn_states --apply=launch:kernel=merge_attn_states,block-x-div=8 %kernels/merge_attn_states.cu 2>&1 | FileCheck %s --check-prefix=NOANY
//
// Kernels of this file: a launcher edited, an exit condition, thread 0 by
// threadIdx.x, and the refusals.
// RUN: %astra-opt --apply=vectorize-loads:kernel=block_elem,any-grid=1 --apply=launch:kernel=block_elem,block-x-div=4 %s | FileCheck %s --check-prefix=ELEM
// RUN: %astra-opt --apply=vectorize-loads:kernel=block_exit,any-grid=1 %s | FileCheck %s --check-prefix=EXIT
// RUN: %astra-opt --apply=vectorize-loads:kernel=block_tid0,any-grid=1 %s | FileCheck %s --check-prefix=TID0
// RUN: not %astra-opt --apply=vectorize-loads:kernel=block_all,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: %astra-opt --apply=vectorize-loads:kernel=block_all %s | FileCheck %s --check-prefix=ALL-DEFAULT
// RUN: not %astra-opt --apply=vectorize-loads:kernel=block_else,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=ELSE
// RUN: not %astra-opt --apply=vectorize-loads:kernel=block_dim,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=DIM
// RUN: not %astra-opt --apply=vectorize-loads:kernel=block_shfl,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=SHFL
// RUN: not %astra-opt --apply=vectorize-loads:kernel=block_call,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=CALL
// RUN: %astra-opt --apply=vectorize-loads:kernel=block_shared,any-grid=1 %s | FileCheck %s --check-prefix=SHARED
// RUN: not %astra-opt --apply=vectorize-loads:kernel=block_shared_all,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=SHARED-ALL

// MERGE:      const int i = threadIdx.x;
// MERGE:      // astra-opt vectorize-loads: any block (every element below the bound, block-stride; the grid stays)
// MERGE-NEXT: const int vecStride = static_cast<int>(blockDim.x);
// MERGE-NEXT: if (vecStride < head_size &&
// MERGE-NEXT:     reinterpret_cast<size_t>(prefix_output) % 16 == 0 &&
// MERGE:      head_size % (16 / sizeof(T_)) == 0) {
// MERGE:      for (int vecIdx = i; vecIdx < head_size / VecW; vecIdx += vecStride) {
// MERGE-NEXT:   const int i = vecIdx * VecW;
// MERGE:      // Scalar tail: the last head_size % VecW elements, block-stride.
// MERGE-NEXT: for (int vecIdx = head_size / VecW * VecW + i; vecIdx < head_size;
// MERGE-NEXT:      vecIdx += vecStride) {
// MERGE-NEXT:   const int i = vecIdx;
// MERGE-NEXT:   int64_t offset = ((int64_t)token * num_heads + head) * head_size + i;
// MERGE:      } else {
// MERGE-NEXT: // The original, block-stride.
// MERGE-NEXT: for (int vecIdx = i; vecIdx < head_size; vecIdx += vecStride) {
// MERGE-NEXT:   const int i = vecIdx;
// MERGE-NEXT:   if (i < head_size) {
// MERGE:      }
// MERGE:      if (i == 0) {
// MERGE-NEXT:   output_lse[(int64_t)head * num_tokens + token] = out_lse;

// 16-byte loads of both inputs and 16-byte stores, in both instantiations.
// MERGE-PTX:      .entry {{.*}}merge_attn_states
// MERGE-PTX-COUNT-2: ld.global.v4.{{[bu]}}32
// MERGE-PTX:      st.global.v4.{{[bu]}}32
// MERGE-PTX:      .entry {{.*}}merge_attn_states
// MERGE-PTX-COUNT-2: ld.global.v4.{{[bu]}}32
// MERGE-PTX:      st.global.v4.{{[bu]}}32

// MERGE-LAUNCH-NOT: {{error|warning}}

// GRID: error: rewrite 'launch' does not apply to kernel merge_attn_states
// GRID-NEXT: note: launch of merge_attn_states: the grid cannot be divided: vectorize-loads' any-grid form at a per-block index (threadIdx alone) covers every element for any block, but each block's elements belong to its place in the grid (blockIdx indexes other things, such as tokens and heads); divide the block instead (block-x-div)

// NOANY: note: launch of merge_attn_states: dividing the grid or the block needs a kernel whose threads cover every element for any grid: apply vectorize-loads:any-grid=1 first

#include <cuda_runtime.h>

// A launcher in the file: its integer block is divided.
__global__ void block_elem(float *out, float *total, const float *a,
                           const float *b, const float *wa, int d) {
  const int row = blockIdx.x;
  const int i = threadIdx.x;
  const float w = expf(wa[row]);
  if (i < d) {
    const long off = (long)row * d + i;
    out[off] = a[off] * w + b[off];
  }
  if (i == 0)
    total[row] = w;
}
void launch_block_elem(float *out, float *total, const float *a,
                       const float *b, const float *wa, int rows, int d) {
  block_elem<<<rows, d>>>(out, total, a, b, wa, d);
}
// ELEM:      // astra-opt vectorize-loads: any block
// ELEM:      for (int vecIdx = i; vecIdx < d / VecW; vecIdx += vecStride) {
// ELEM:      if (i == 0)
// ELEM-NEXT:   total[row] = w;
// ELEM:      block_elem<<<rows, ((d) + 3) / 4>>>(out, total, a, b, wa, d);

// An exit condition with a statement after the block skips the elements
// only: thread 0 still writes its flag.
__global__ void block_exit(float *out, int *seen, const float *a, int d,
                           int active) {
  const int i = threadIdx.x;
  if (i < d && active != 0) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i];
  }
  if (i == 0)
    seen[blockIdx.x] = 1;
}
// EXIT:      if (!(!(active != 0))) {
// EXIT:      for (int vecIdx = d / VecW * VecW + i; vecIdx < d; vecIdx += vecStride) {
// EXIT-NEXT:   const int i = vecIdx;
// EXIT-NEXT:   out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i];
// EXIT-NEXT: }
// EXIT-NEXT: }
// EXIT-NEXT: } else {
// EXIT-NOT:  return;
// EXIT:      if (i == 0)
// EXIT-NEXT:   seen[blockIdx.x] = 1;

// Thread 0 named by threadIdx.x, with another condition.
__global__ void block_tid0(float *out, float *total, const float *a, int d,
                           int rows) {
  const int i = threadIdx.x;
  const float s = a[blockIdx.x];
  if (i < d) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i] * s;
  }
  if (blockIdx.x < rows && threadIdx.x == 0)
    total[blockIdx.x] = s;
}
// TID0: // astra-opt vectorize-loads: any block

// Every thread writes `total`: with a smaller block, the threads past its
// end would not. (The default form keeps every thread, so it applies.)
__global__ void block_all(float *out, float *total, const float *a, int d) {
  const int i = threadIdx.x;
  if (i < d) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i];
  }
  total[(long)blockIdx.x * 1024 + i] = 1.0f;
}
// ALL: vectorize-any-block.cu:[[@LINE-5]]:3: note: one element per thread: any-grid=1 at a per-block index (threadIdx alone) lets the block shrink, and 'total' is written outside the per-element statements, and not only on thread 0 (`if (i == 0)`): a smaller block would leave the writes of its missing threads out (line [[@LINE-2]])
// ALL-DEFAULT: const int vecLimit = d < vecStride

// The else branch of `if (i == 0)` runs on every other thread.
__global__ void block_else(float *out, float *total, const float *a, int d) {
  const int i = threadIdx.x;
  if (i < d) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i];
  }
  if (i == 0)
    total[blockIdx.x] = 0.0f;
  else
    total[blockIdx.x + 4096] = 1.0f;
}
// ELSE: note: one element per thread: any-grid=1 at a per-block index (threadIdx alone) lets the block shrink, and 'total' is written outside the per-element statements, and not only on thread 0

// blockDim changes with the block.
__global__ void block_dim(float *out, float *total, const float *a, int d) {
  const int i = threadIdx.x;
  if (i < d) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i];
  }
  if (i == 0)
    total[blockIdx.x] = (float)blockDim.x;
}
// DIM: note: one element per thread: any-grid=1 at a per-block index (threadIdx alone) lets the block shrink, and the kernel reads blockDim, whose value a smaller block changes (line [[@LINE-2]])

// A warp collective around the element: a smaller block may leave a warp
// partial.
__global__ void block_shfl(float *out, float *total, const float *a, int d) {
  const int i = threadIdx.x;
  float v = a[blockIdx.x];
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  if (i < d) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i];
  }
  if (i == 0)
    total[blockIdx.x] = v;
}
// SHFL: note: one element per thread: any-grid=1 at a per-block index (threadIdx alone) lets the block shrink, and a statement outside the per-element ones calls __shfl_xor_sync, which a smaller block may leave without a full warp

// A call that may write memory (refused for every form).
__device__ void note_row(float *p, int r) { p[r] = 1.0f; }
__global__ void block_call(float *out, float *total, const float *a, int d) {
  const int i = threadIdx.x;
  if (i < d) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i];
  }
  note_row(total, blockIdx.x);
}
// CALL: note: one element per thread: {{.*}}'total' is written outside the per-element statements

// Shared memory written by thread 0 and read by all after a barrier: thread
// 0 exists in any block. A thread's own array is its own.
__global__ void block_shared(float *out, const float *a, const float *w,
                             int d) {
  __shared__ float scale;
  float mine[2];
  mine[0] = 1.0f;
  if (threadIdx.x == 0)
    scale = w[blockIdx.x];
  __syncthreads();
  const int i = threadIdx.x;
  const float s = scale * mine[0];
  if (i < d) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i] * s;
  }
}
// SHARED: // astra-opt vectorize-loads: any block

// ... but a shared array written by every thread is not.
__global__ void block_shared_all(float *out, const float *a, int d) {
  __shared__ float part[1024];
  const int i = threadIdx.x;
  part[i] = a[i];
  __syncthreads();
  const float s = part[0];
  if (i < d) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i] * s;
  }
}
// SHARED-ALL: note: one element per thread: any-grid=1 at a per-block index (threadIdx alone) lets the block shrink, and 'part' is written outside the per-element statements, and not only on thread 0

// A __shared__ scalar that every thread assigns.
// RUN: not %astra-opt --apply=vectorize-loads:kernel=block_shared_scalar,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=SCALAR
__global__ void block_shared_scalar(float *out, const float *a, int d) {
  __shared__ float last;
  const int i = threadIdx.x;
  last = a[i];
  __syncthreads();
  const float s = last;
  if (i < d) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i] * s;
  }
}
// SCALAR: note: one element per thread: any-grid=1 at a per-block index (threadIdx alone) lets the block shrink, and 'last' is written outside the per-element statements, and not only on thread 0
