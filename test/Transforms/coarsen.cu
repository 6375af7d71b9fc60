// coarsen: each thread runs C consecutive threads of a block that reduces
// one value per thread with a shared tree, behind a guard on the block's
// extent (the original is the fallback); its stores become one pack where
// every c stored to consecutive aligned elements; the launch divides the
// block by exactly the factor, and an exact fold then runs several such
// blocks as the rows of one. Refusals: no extent, a tree that does not
// follow blockDim.x, blockDim.x read elsewhere, another barrier, a return,
// two trees, a per-thread local that is not a scalar; the launch's other
// factors and an exact fold launched without fold-exact.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=coarsen:kernel=group_max,extent=gs %s | FileCheck %s --check-prefix=MAX
// RUN: %astra-opt --apply=coarsen:kernel=group_max,extent=gs,factor=4 %s | FileCheck %s --check-prefix=MAX4
// RUN: %astra-opt --apply=coarsen:kernel=group_max,extent=gs,factor=16 %s | FileCheck %s --check-prefix=MAX16
// RUN: %astra-opt --apply=coarsen:kernel=group_max,extent=gs --apply=fold-blocks:kernel=group_max,exact=1 --apply=launch:kernel=group_max,block-x-div=8,block-exact=1 --apply=launch:kernel=group_max,fold-y=8,fold-exact=1 %s | FileCheck %s --check-prefix=FOLD
// RUN: %astra-opt --apply=coarsen:kernel=group_max,extent=gs --apply=fold-blocks:kernel=group_max,exact=1 --emit-ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %astra-opt --apply=coarsen:kernel=row_sum,extent=n %s | FileCheck %s --check-prefix=SUM
// RUN: %astra-opt --apply=coarsen:kernel=loop_store,extent=n %s | FileCheck %s --check-prefix=LOOP
// RUN: not %astra-opt --apply=coarsen:kernel=group_max,extent=gs --apply=launch:kernel=group_max,block-x-div=4 %s 2>&1 | FileCheck %s --check-prefix=FACTOR
// RUN: not %astra-opt --apply=coarsen:kernel=group_max,extent=gs --apply=fold-blocks:kernel=group_max,exact=1 --apply=launch:kernel=group_max,fold-y=8 %s 2>&1 | FileCheck %s --check-prefix=NOTEXACT
// RUN: not %astra-opt --apply=coarsen:kernel=group_max,extent=gs --apply=launch:kernel=group_max,block-x-div=8 %s 2>&1 | FileCheck %s --check-prefix=NOTBLOCKEXACT
// RUN: not %astra-opt --apply=coarsen:kernel=group_max %s 2>&1 | FileCheck %s --check-prefix=NOEXTENT
// RUN: not %astra-opt --apply=coarsen:kernel=group_max,extent=scale %s 2>&1 | FileCheck %s --check-prefix=BADEXTENT
// RUN: not %astra-opt --apply=coarsen:kernel=pair_local,extent=n %s 2>&1 | FileCheck %s --check-prefix=PAIR
// RUN: not %astra-opt --apply=coarsen:kernel=moves_param,extent=n %s 2>&1 | FileCheck %s --check-prefix=MOVES
// RUN: not %astra-opt --apply=coarsen:kernel=local_type,extent=n %s 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not %astra-opt --apply=coarsen:kernel=deep_callee,extent=n %s 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: %astra-opt --apply=coarsen:kernel=int_tree,extent=n %s | FileCheck %s --check-prefix=INT
// RUN: %astra-opt --apply=coarsen:kernel=aliased,extent=n %s | sed -n '/void aliased/,/} else {/p' | FileCheck %s --check-prefix=ALIAS
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=coarsen:kernel=swapped,extent=gs %s | sed -n '/^__global__ void swapped/,/^}/p' | FileCheck %s --check-prefix=SWAP
// RUN: not %astra-opt --apply=coarsen:kernel=in_macro,extent=gs %s 2>&1 | FileCheck %s --check-prefix=MACRO
// RUN: %astra-opt --apply=coarsen:kernel=by_thread,extent=gs %s | sed -n '/^__global__ void by_thread/,/^}/p' | FileCheck %s --check-prefix=BYTID

#include <cuda_runtime.h>
#include <stdint.h>

// A group of gs values per block (gs threads), its absolute maximum by a
// shared tree, then each value scaled by it.
__global__ void group_max(int8_t *out, float *scales, const float *in, int d,
                          int gs) {
  __shared__ float part[1024];
  const int g = blockIdx.x;
  const long t = blockIdx.y;
  const int i = g * gs + threadIdx.x;
  const bool on = i < d;
  float v = 0.0f;
  if (on)
    v = in[t * d + i];
  part[threadIdx.x] = fabsf(v);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
    __syncthreads();
  }
  const float m = fmaxf(part[0], 1e-10f) / 127.0f;
  if (threadIdx.x == 0)
    scales[t * gridDim.x + g] = m;
  if (on)
    out[t * d + i] = (int8_t)rintf(v / m);
}

// MAX: const int g = blockIdx.x;
// MAX-NEXT: const long t = blockIdx.y;
// MAX-NEXT: // astra-opt coarsen: each thread runs 8 threads of the original block (threadIdx.x * 8 + c) when the block is gs / 8 threads; any other block runs the original below
// MAX-NEXT: if (blockDim.x * 8 == static_cast<unsigned int>(gs) && (gs & (gs - 1)) == 0) {
// MAX-NEXT: int i[8];
// MAX-NEXT: bool on[8];
// MAX-NEXT: float v[8];
// MAX-NEXT: float coarsenAcc;
// MAX-NEXT: #pragma unroll
// MAX-NEXT: for (int coarsenC = 0; coarsenC < 8; ++coarsenC) {
// MAX-NEXT: const unsigned int coarsenT = threadIdx.x * 8 + coarsenC;
// MAX-NEXT: i[coarsenC] = g * gs + coarsenT;
// MAX-NEXT: on[coarsenC] = i[coarsenC] < d;
// MAX-NEXT: v[coarsenC] = 0.0f;
// MAX-NEXT: if (on[coarsenC])
// MAX-NEXT: v[coarsenC] = in[t * d + i[coarsenC]];
// MAX-NEXT: coarsenAcc = coarsenC == 0 ? static_cast<float>(fabsf(v[coarsenC])) : fmaxf(coarsenAcc, static_cast<float>(fabsf(v[coarsenC])));
// MAX-NEXT: }
// MAX-NEXT: part[threadIdx.x] = coarsenAcc;
// MAX-NEXT: __syncthreads();
// MAX-NEXT: for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
// MAX: const float m = fmaxf(part[0], 1e-10f) / 127.0f;
// MAX-NEXT: int8_t outVal[8];
// MAX-NEXT: unsigned int outStored = 0;
// MAX-NEXT: #pragma unroll
// MAX-NEXT: for (int coarsenC = 0; coarsenC < 8; ++coarsenC) {
// MAX-NEXT: const unsigned int coarsenT = threadIdx.x * 8 + coarsenC;
// MAX-NEXT: if (coarsenT == 0)
// MAX-NEXT: scales[t * gridDim.x + g] = m;
// MAX-NEXT: if (on[coarsenC])
// MAX-NEXT: (outVal[coarsenC] = ((int8_t)rintf(v[coarsenC] / m)), outStored |= (1u << coarsenC));
// MAX-NEXT: }
// MAX-NEXT: // astra-opt coarsen: the deferred stores, as one 8-byte pack when all 8 happened, the first is aligned and the last follows it by 7 (the index rises by one per thread: then so do all between)
// MAX-NEXT: if (outStored == 255u &&
// MAX-NEXT: &(out[t * d + i[7]]) == &(out[t * d + i[0]]) + 7 &&
// MAX-NEXT: reinterpret_cast<unsigned long long>(&(out[t * d + i[0]])) % 8 == 0) {
// MAX: *reinterpret_cast<uint2 *>(&(out[t * d + i[0]])) = outPack.Pack;
// MAX-NEXT: } else {
// MAX: if (outStored >> coarsenC & 1u)
// MAX-NEXT: out[t * d + i[coarsenC]] = outVal[coarsenC];
// MAX: } else {
// MAX-NEXT: const int i = g * gs + threadIdx.x;
// MAX: if (threadIdx.x == 0)
// MAX-NEXT: scales[t * gridDim.x + g] = m;
// MAX-NEXT: if (on)
// MAX-NEXT: out[t * d + i] = (int8_t)rintf(v / m);
// MAX-NEXT: }
// MAX-NEXT: }

// MAX4: if (blockDim.x * 4 == static_cast<unsigned int>(gs) &&
// MAX4: if (outStored == 15u &&
// MAX4: &(out[t * d + i[3]]) == &(out[t * d + i[0]]) + 3 &&
// MAX4: *reinterpret_cast<unsigned int *>(&(out[t * d + i[0]])) = outPack.Pack;

// MAX16: if (blockDim.x * 16 == static_cast<unsigned int>(gs) &&
// MAX16: if (outStored == 65535u &&
// MAX16-NEXT: &(out[t * d + i[15]]) == &(out[t * d + i[0]]) + 15 &&
// MAX16-NEXT: reinterpret_cast<unsigned long long>(&(out[t * d + i[0]])) % 16 == 0) {
// MAX16: *reinterpret_cast<uint4 *>(&(out[t * d + i[0]])) = outPack.Pack;

// FOLD: const unsigned int foldY = blockIdx.y * blockDim.y + threadIdx.y;
// FOLD: const long t = foldY;
// FOLD: (part + threadIdx.y * blockDim.x)[threadIdx.x] = coarsenAcc;
// FOLD: const float m = fmaxf((part + threadIdx.y * blockDim.x)[0], 1e-10f) / 127.0f;

// PTX: .visible .entry _Z9group_maxPaPfPKfii(
// PTX: st.global.b64

// A row sum (one row of n values per block of n threads): a float sum is
// regrouped; the row's value is stored once, by thread 0, and not packed.
__global__ void row_sum(float *out, const float *x, int n) {
  __shared__ float acc[1024];
  const int r = blockIdx.x;
  acc[threadIdx.x] = x[r * n + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      acc[threadIdx.x] += acc[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[r] = acc[0];
}

// SUM: if (blockDim.x * 8 == static_cast<unsigned int>(n) && (n & (n - 1)) == 0) {
// SUM: coarsenAcc = coarsenC == 0 ? static_cast<float>(x[r * n + coarsenT]) : coarsenAcc + static_cast<float>(x[r * n + coarsenT]);
// SUM: if (coarsenT == 0)
// SUM-NEXT: out[r] = acc[0];
// SUM-NEXT: }
// SUM-NEXT: } else {

// FACTOR: the kernel was coarsened by 8: its block divides by exactly that (block-x-div=8), or not at all
// NOTEXACT: the kernel was folded exactly (its rows share barriers and cannot return past a bound): add fold-exact=1
// NOTBLOCKEXACT: the kernel was coarsened: add block-exact=1, so that a block the factor does not divide stays whole
// NOEXTENT: extent= is not an integer parameter that the kernel leaves alone
// BADEXTENT: extent=scale is not an integer parameter that the kernel leaves alone

// The tree's first stride is a constant: a smaller block would read past it.
__global__ void const_stride(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}

// blockDim.x read outside the tree.
__global__ void reads_block(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}

// Another barrier, and a return.
__global__ void two_barriers(float *out, const float *x, int n) {
  __shared__ float a[1024];
  float v = x[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
__global__ void returns(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = x[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x != 0)
    return;
  out[blockIdx.x] = a[0];
}

// A per-thread local that is not a scalar.
struct Pair {
  float a, b;
};
__global__ void pair_local(float *out, const float *x, int n) {
  __shared__ float a[1024];
  Pair p = {x[blockIdx.x * n + threadIdx.x], 0.0f};
  a[threadIdx.x] = p.a;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}

// LIST-DAG: coarsen group_max: does not apply: coarsen of group_max by 8: extent= is not an integer parameter that the kernel leaves alone (give the one that holds the original block's threads)
// LIST-DAG: coarsen const_stride: does not apply: coarsen of const_stride by 8: the tree's first stride `64` does not follow blockDim.x
// LIST-DAG: coarsen reads_block: does not apply: coarsen of reads_block by 8: it reads blockDim.x outside the tree (the coarsened block is smaller)
// LIST-DAG: coarsen two_barriers: does not apply: coarsen of two_barriers by 8: it has a barrier besides the tree's
// LIST-DAG: coarsen returns: does not apply: coarsen of returns by 8: it returns (a thread would leave the C threads it runs)
// PAIR: coarsen of pair_local by 8: the per-thread local 'p' is not a scalar initialised with `=`

// A store in a loop of phase B runs more than once per c: not packed (a
// second store would replace the recorded one).
__global__ void loop_store(float *out, const float *x, int n, int k) {
  __shared__ float a[1024];
  const float v = x[blockIdx.x * n + threadIdx.x];
  a[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  for (int j = 0; j < k; ++j)
    out[(blockIdx.x * k + j) * n + threadIdx.x] = v / a[0];
}
// LOOP: for (int j = 0; j < k; ++j)
// LOOP-NEXT: out[(blockIdx.x * k + j) * n + coarsenT] = v[coarsenC] / a[0];

// From a review: a parameter the per-thread work changes (each of the C
// threads would change it once more), a label (copied into both versions),
// a type declared in the per-thread work, a device function that reaches
// threadIdx.x through another call, an int tree over a float leaf (each
// value converted as the leaf's store converts it), a stored pointer with
// an alias (not packed: the alias's later store would be overwritten).
__global__ void moves_param(float *out, const float *x, int n) {
  __shared__ float a[1024];
  const int i = threadIdx.x;
  x += blockIdx.x * n;
  a[threadIdx.x] = x[i];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[blockIdx.x * n + i] = a[0];
}
__global__ void labelled(float *out, const float *x, int n) {
  __shared__ float a[1024];
  const int i = threadIdx.x;
  float v = x[blockIdx.x * n + i];
again:
  if (v > 1.0f) {
    v *= 0.5f;
    goto again;
  }
  a[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[blockIdx.x * n + i] = a[0];
}
__global__ void local_type(float *out, const float *x, int n) {
  __shared__ float a[1024];
  const int i = threadIdx.x;
  typedef float acc_t;
  acc_t v = x[blockIdx.x * n + i];
  a[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[blockIdx.x * n + i] = a[0];
}
__device__ unsigned lane_of() { return threadIdx.x; }
__device__ float mine(const float *row) { return row[lane_of()]; }
__global__ void deep_callee(float *out, const float *x, int n) {
  __shared__ float a[1024];
  const int i = threadIdx.x;
  a[threadIdx.x] = mine(x + blockIdx.x * n);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  out[blockIdx.x * n + i] = a[0];
}
__global__ void int_tree(int *out, const float *x, int n) {
  __shared__ int a[1024];
  const int i = blockIdx.x * n + threadIdx.x;
  a[threadIdx.x] = x[i];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
__global__ void aliased(signed char *out, const float *x, int n) {
  __shared__ float a[1024];
  signed char *flag = out;
  const int i = blockIdx.x * n + threadIdx.x;
  const float v = x[i];
  a[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] = fmaxf(a[threadIdx.x], a[threadIdx.x + s]);
    __syncthreads();
  }
  out[i] = (signed char)(v / a[0]);
  if (v == a[0])
    flag[i] = -128;
}
// LIST-DAG: coarsen labelled: does not apply: coarsen of labelled by 8: it holds the label 'again' (copied into both versions)
// MOVES: coarsen of moves_param by 8: it writes 'x', declared outside the per-thread work (each of the 8 threads a thread runs would write it)
// TYPE: coarsen of local_type by 8: the per-thread work declares something other than a variable (a type or an alias), which its copies would lose
// DEEP: coarsen of deep_callee by 8: it calls lane_of, which reads threadIdx or blockDim (not rewritten)
// INT: coarsenAcc = coarsenC == 0 ? static_cast<int>(x[i[coarsenC]]) : coarsenAcc + static_cast<int>(x[i[coarsenC]]);
// ALIAS: (signed char)(v[coarsenC] / a[0]);
// ALIAS-NOT: outStored
// The leaf reads the tree's array: refused.
__global__ void leaf_reads(float *out, const float *x, int n) {
  __shared__ float a[1024];
  a[threadIdx.x] = a[threadIdx.x] + x[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = a[0];
}
// LIST-DAG: coarsen leaf_reads: does not apply: coarsen of leaf_reads by 8: the leaf's value reads 'a'

// A store whose index is not proved to rise by one per thread (each pair of
// elements swapped): deferred while consecutive, tested per store, and made
// at once where not (here from c = 1 on).
__global__ void swapped(int8_t *out, const float *in, int d, int gs) {
  __shared__ float part[1024];
  const int i = blockIdx.x * gs + threadIdx.x;
  const float v = in[i];
  part[threadIdx.x] = fabsf(v);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
    __syncthreads();
  }
  out[i ^ 1] = (int8_t)(v / part[0]);
}
// SWAP: int8_t *outAt;
// SWAP: int8_t *outBase = nullptr;
// SWAP: (outNew = ((int8_t)(v[coarsenC] / part[0])), outAt = &(out[i[coarsenC] ^ 1]), outStored == (1u << coarsenC) - 1u && (coarsenC == 0 || outAt == outBase + coarsenC)
// SWAP: the deferred stores, as one 8-byte pack when all 8 were consecutive and the first is aligned
// SWAP-NEXT: if (outStored == 255u &&
// SWAP-NEXT: reinterpret_cast<unsigned long long>(outBase) % 8 == 0) {
// SWAP: outBase[coarsenC] = outVal[coarsenC];

// threadIdx.x in the store's own index: each copy's address names its
// thread, threadIdx.x * 8 + c.
__global__ void by_thread(int8_t *out, const float *in, int gs) {
  __shared__ float part[1024];
  const float v = in[blockIdx.x * gs + threadIdx.x];
  part[threadIdx.x] = fabsf(v);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
    __syncthreads();
  }
  out[blockIdx.x * gs + threadIdx.x] = (int8_t)(v / part[0]);
}
// BYTID: (outVal[coarsenC] = ((int8_t)(v[coarsenC] / part[0])), outStored |= (1u << coarsenC));
// BYTID: if (outStored == 255u &&
// BYTID-NEXT: &(out[blockIdx.x * gs + (threadIdx.x * 8 + 7)]) == &(out[blockIdx.x * gs + (threadIdx.x * 8 + 0)]) + 7 &&
// BYTID-NEXT: reinterpret_cast<unsigned long long>(&(out[blockIdx.x * gs + (threadIdx.x * 8 + 0)])) % 8 == 0) {
// BYTID: out[blockIdx.x * gs + (threadIdx.x * 8 + coarsenC)] = outVal[coarsenC];
// BYTID-NOT: outBase

// From a review: threadIdx.x inside a macro is not edited, so each copy
// would store to the coarsened thread's one element. Refused.
#define AT_THREAD (blockIdx.x * gs + threadIdx.x)
__global__ void in_macro(int8_t *out, const float *in, int gs) {
  __shared__ float part[1024];
  const float v = in[blockIdx.x * gs + threadIdx.x];
  part[threadIdx.x] = fabsf(v);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
    __syncthreads();
  }
  out[AT_THREAD] = (int8_t)(v / part[0]);
}
// MACRO: coarsen of in_macro by 8: it reads threadIdx.x inside a macro, which the rewrite cannot edit
