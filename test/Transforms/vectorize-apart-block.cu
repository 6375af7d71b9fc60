// REQUIRES: cuda-headers
// Two generalisations of vectorize-loads' widened forms: one pointer stored
// at offsets that are the loop's extent apart (the GraphSAGE concatenation),
// and one element per thread keyed on threadIdx alone (merge_attn_states):
// a block-stride loop over packs. What is accepted, the code, the PTX, and
// what is refused with the reason.
// RUN: %astra-opt --apply=vectorize-loads:kernel=concat %s | FileCheck %s --check-prefix=CONCAT
// RUN: %astra-opt --apply=vectorize-loads:kernel=concat %s | %astra-opt --emit-ptx - | FileCheck %s --check-prefix=CONCAT-PTX
// RUN: %astra-opt --apply=vectorize-loads:kernel=concat_below %s | FileCheck %s --check-prefix=BELOW
// RUN: %astra-opt --apply=vectorize-loads:kernel=concat_stride %s | FileCheck %s --check-prefix=STRIDE
// RUN: %astra-opt --apply=vectorize-loads:kernel=block_elem %s | FileCheck %s --check-prefix=BLOCK
// RUN: %astra-opt --apply=vectorize-loads:kernel=block_elem %s | %astra-opt --emit-ptx - | FileCheck %s --check-prefix=BLOCK-PTX
// RUN: %astra-opt --apply=vectorize-loads:kernel=block_exit %s | FileCheck %s --check-prefix=EXIT
// RUN: not %astra-opt --apply=vectorize-loads:loop=apart_inner:L0 %s 2>&1 | FileCheck %s --check-prefix=INNER
// RUN: %astra-opt --apply=vectorize-loads:kernel=apart_two_terms %s | FileCheck %s --check-prefix=TWO
// RUN: not %astra-opt --apply=vectorize-loads:kernel=block_before %s 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: not %astra-opt --apply=vectorize-loads:kernel=block_call %s 2>&1 | FileCheck %s --check-prefix=CALL
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST

#include <cuda_runtime.h>

// The root half of the row F past the mean half: disjoint, proved.
__global__ void concat(float *out, const float *x, const float *y, int F) {
  const int r = blockIdx.x;
  for (int f = threadIdx.x; f < F; f += blockDim.x) {
    out[(long)r * 2 * F + f] = y[(long)r * F + f] * 0.5f;
    out[(long)r * 2 * F + F + f] = x[(long)r * F + f];
  }
}
// CONCAT:      if (reinterpret_cast<size_t>(out + ((long)r * 2 * F)) % 16 == 0 &&
// CONCAT-NEXT:     reinterpret_cast<size_t>(y + ((long)r * F)) % 16 == 0 &&
// CONCAT-NEXT:     reinterpret_cast<size_t>(out + ((long)r * 2 * F + F)) % 16 == 0 &&
// CONCAT-NEXT:     reinterpret_cast<size_t>(x + ((long)r * F)) % 16 == 0) {
// CONCAT:        for (int vecIdx = threadIdx.x; vecIdx < F / VecW; vecIdx += blockDim.x) {
// CONCAT:          *reinterpret_cast<float4 *>(&out[(long)r * 2 * F + f]) = outVec0.u;
// CONCAT-NEXT:     *reinterpret_cast<float4 *>(&out[(long)r * 2 * F + F + f]) = outVec1.u;
// CONCAT:      } else {
// CONCAT-NEXT:   for (int f = threadIdx.x; f < F; f += blockDim.x) {
// CONCAT-PTX-COUNT-2: ld.global.v4.{{f32|b32}}
// CONCAT-PTX-COUNT-2: st.global.v4.{{f32|b32}}

// The second half before the first (a negative distance) is as disjoint.
__global__ void concat_below(float *out, const float *x, int F) {
  const int r = blockIdx.x + 1;
  for (int f = threadIdx.x; f < F; f += blockDim.x) {
    out[(long)r * F + f] = x[f];
    out[(long)r * F - F + f] = -x[f];
  }
}
// BELOW:      reinterpret_cast<size_t>(out + ((long)r * F - F)) % 16 == 0
// BELOW:      *reinterpret_cast<float4 *>(&out[(long)r * F - F + f]) = outVec1.u;

// A distance that is not the extent: checked at run time.
__global__ void concat_stride(float *out, const float *x, int n, int stride) {
  for (int f = threadIdx.x; f < n; f += blockDim.x) {
    out[f] = x[f];
    out[stride + f] = 2.0f * x[f];
  }
}
// STRIDE:      reinterpret_cast<size_t>(out + stride) % 16 == 0 && (stride) >= (n)) {

// One element per thread of a block; the per-block values stay outside the
// pack loop, and the statement after the bound check keeps thread 0's role.
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
// BLOCK:      if (reinterpret_cast<size_t>(a) % 16 == 0 &&
// BLOCK-NEXT:     reinterpret_cast<size_t>(b) % 16 == 0 &&
// BLOCK-NEXT:     reinterpret_cast<size_t>(out) % 16 == 0 && d % 4 == 0) {
// BLOCK:        const int vecStride = static_cast<int>(blockDim.x);
// BLOCK-NEXT:   const int vecLimit = d < vecStride ? static_cast<int>(d) : vecStride;
// BLOCK-NEXT:   for (int vecIdx = i; vecIdx < vecLimit / VecW; vecIdx += vecStride) {
// BLOCK-NEXT:     const int i = vecIdx * VecW;
// BLOCK-NEXT:     const long off = (long)row * d + i;
// BLOCK:            outVec.v[lane] = aVec.v[lane] * w + bVec.v[lane];
// BLOCK:        if (i >= vecLimit / VecW * VecW && i < vecLimit) {
// BLOCK:      } else {
// BLOCK-NEXT:   if (i < d) {
// BLOCK:        if (i == 0)
// BLOCK-NEXT:     total[row] = w;
// BLOCK-PTX: ld.global.v4.{{f32|b32}}
// BLOCK-PTX: ld.global.v4.{{f32|b32}}
// BLOCK-PTX: st.global.v4.{{f32|b32}}

// A second condition of the bound check skips the elements only: the
// statement after the block still runs.
__global__ void block_exit(float *out, int *seen, const float *a, int d,
                           int active) {
  const int i = threadIdx.x;
  if (i < d && active != 0) {
    out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i];
  }
  if (i == 0)
    seen[blockIdx.x] = 1;
}
// EXIT:        if (!(!(active != 0))) {
// EXIT:          for (int vecIdx = i; vecIdx < vecLimit / VecW; vecIdx += vecStride) {
// EXIT:          if (i >= vecLimit / VecW * VecW && i < vecLimit) {
// EXIT-NEXT:       out[(long)blockIdx.x * d + i] = a[(long)blockIdx.x * d + i];
// EXIT-NEXT:     }
// EXIT-NEXT:   }
// EXIT-NEXT: } else {
// EXIT:      if (i == 0)

// The common part of the offsets changes with the edge: rows idx[e] and
// idx[e] + 1 would overlap.
__global__ void apart_inner(float *out, const long *idx, const float *x,
                            int ne, int F) {
  for (int f = threadIdx.x; f < F; f += blockDim.x)
    for (int e = 0; e < ne; ++e) {
      out[idx[e] * F + f] = x[f];
      out[idx[e] * F + F + f] = x[f];
    }
}
// INNER: 'out' is stored as a vector and also accessed at another offset or per element; vector order could change what is read (an offset is not terms known before the loop plus the index)

__global__ void apart_two_terms(float *out, const float *x, int F, int G) {
  for (int f = threadIdx.x; f < F; f += blockDim.x) {
    out[f] = x[f];
    out[F + G + f] = x[f];
  }
}
// Offsets that differ in more than one term are not proved apart; the
// stored pointer's second offset is then a pairs distance, guarded to be a
// whole number of packs and not zero (docs/rewrites.md, pairs).
// TWO: reinterpret_cast<size_t>(out + (F + G)) % 16 == 0 && (F + G) != 0) {

// The element a thread writes before the check is read, in the rewrite, by
// another thread.
__global__ void block_before(float *out, float *buf, const float *a, int d) {
  const int i = threadIdx.x;
  buf[i] = a[i];
  if (i < d) {
    out[i] = buf[i] * 2.0f;
  }
}
// BEFORE: vectorize-apart-block.cu:[[@LINE-5]]:3: note: one element per thread: 'buf' is accessed both by the per-element statements and outside them

__device__ void mark(float *p) { p[0] = 1.0f; }
__global__ void block_call(float *out, const float *a, int d) {
  const int i = threadIdx.x;
  if (i < d) {
    out[i] = a[i];
  }
  mark(out);
}
// CALL: note: one element per thread: 'out' is accessed both by the per-element statements and outside them

// threadIdx alone with no bound check on it is no site.
__global__ void block_loop(float *out, const float *a, int d) {
  const int tid = threadIdx.x;
  for (int j = tid; j < d; j += blockDim.x)
    out[j] = a[j];
}

// LIST: vectorize-loads concat concat:L0: applies: {{.*}}; accesses 'out' at offsets F apart (the extent of the index: disjoint ranges)
// LIST: vectorize-loads concat_stride concat_stride:L0: applies: {{.*}}; checks that (stride) >= (n) (offsets of a stored pointer stay disjoint)
// LIST: vectorize-loads block_elem: applies: one element per thread of a block, packs strided by blockDim: 16-byte accesses to 3 pointer offset(s)
// LIST-NOT: vectorize-loads block_loop: {{.*}}one element per thread
// LIST: vectorize-loads block_loop block_loop:L0: applies:

// A thread that leaves before the check keeps its element undone; packs
// would hand that element to another thread.
// RUN: not %astra-opt --apply=vectorize-loads:kernel=early_exit %s 2>&1 | FileCheck %s --check-prefix=EARLY
__global__ void early_exit(float *out, const float *a, int d) {
  const int i = threadIdx.x;
  if (threadIdx.x % 2 == 1)
    return;
  if (i < d) {
    out[i] = a[i];
  }
}
// EARLY: vectorize-apart-block.cu:[[@LINE-6]]:3: note: one element per thread: a statement before the bound check may leave the kernel on some threads only
