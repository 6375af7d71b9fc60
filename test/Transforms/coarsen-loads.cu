// coarsen's loads=packs (CoarsenLoads.h): the per-thread value loaded
// before the leaf is loaded as whole 4-, 8- or 16-byte words where every
// guard holds and the elements are consecutive and aligned, else element
// by element under its guard, and each read of it converts the pack's
// element again. The three forms of the load; refusals: a nonzero initial
// value, an index that does not rise by one per thread, a value written
// again, a non-const element, elements that fill no whole word, no load.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=coarsen:kernel=cond_half,extent=n,loads=packs %s | sed -n '/^__global__ void cond_half/,/^}/p' | FileCheck %s --check-prefix=HALF
// RUN: %astra-opt --apply=coarsen:kernel=plain_int8,extent=n,factor=4,loads=packs %s | sed -n '/^__global__ void plain_int8/,/^}/p' | FileCheck %s --check-prefix=INT8
// RUN: %astra-opt --apply=coarsen:kernel=cond_common,extent=n,factor=2,loads=packs %s | sed -n '/^__global__ void cond_common/,/^}/p' | FileCheck %s --check-prefix=COMMON
// RUN: %astra-opt --apply=coarsen:kernel=cond_half,extent=n,loads=packs --emit-ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %astra-opt --apply=coarsen:kernel=cond_half,extent=n %s | FileCheck %s --check-prefix=ELEMENTS
// RUN: not %astra-opt --apply=coarsen:kernel=nonzero,extent=n,loads=packs %s 2>&1 | FileCheck %s --check-prefix=NONZERO
// RUN: not %astra-opt --apply=coarsen:kernel=strided,extent=n,loads=packs %s 2>&1 | FileCheck %s --check-prefix=STRIDED
// RUN: not %astra-opt --apply=coarsen:kernel=written,extent=n,loads=packs %s 2>&1 | FileCheck %s --check-prefix=WRITTEN
// RUN: not %astra-opt --apply=coarsen:kernel=writable,extent=n,loads=packs %s 2>&1 | FileCheck %s --check-prefix=MUTABLE
// RUN: not %astra-opt --apply=coarsen:kernel=plain_int8,extent=n,factor=2,loads=packs %s 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not %astra-opt --apply=coarsen:kernel=no_load,extent=n,loads=packs %s 2>&1 | FileCheck %s --check-prefix=NOLOAD
// RUN: %astra-opt --apply=coarsen:kernel=no_load,extent=n %s > /dev/null
// RUN: not %astra-opt --apply=coarsen:kernel=guard_call,extent=n,loads=packs %s 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not %astra-opt --apply=coarsen:kernel=cond_half,extent=n,loads=rows %s 2>&1 | FileCheck %s --check-prefix=BADVALUE

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

// A sum of halves, loaded as `T v = g ? f(p[i]) : 0;`, read by the leaf and
// after the tree.
__global__ void cond_half(float *out, const __half *x, int len, int n) {
  __shared__ float part[1024];
  const int i = blockIdx.x * n + threadIdx.x;
  const bool in = i < len;
  float v = in ? __half2float(x[i]) : 0.0f;
  part[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (in)
    out[i] = v / part[0];
}
// HALF: float coarsenAcc;
// HALF-NEXT: union {
// HALF-NEXT: uint4 Pack[1];
// HALF-NEXT: __half Elem[8];
// HALF-NEXT: } xPack;
// HALF: i[coarsenC] = blockIdx.x * n + coarsenT;
// HALF-NEXT: in[coarsenC] = i[coarsenC] < len;
// HALF-NEXT: }
// HALF-NEXT: // astra-opt coarsen: the loads of 'v', as 1 16-byte pack(s) when every guard holds, the last element follows the first by 7 and the first is aligned
// HALF: xAll = xAll && (in[coarsenC]);
// HALF: if (xAll &&
// HALF-NEXT: &(x[i[7]]) == &(x[i[0]]) + 7 &&
// HALF-NEXT: reinterpret_cast<unsigned long long>(&(x[i[0]])) % 16 == 0) {
// HALF: xPack.Pack[coarsenC] = reinterpret_cast<const uint4 *>(&(x[i[0]]))[coarsenC];
// HALF: xPack.Pack[coarsenC] = make_uint4(0u, 0u, 0u, 0u);
// HALF: if (in[coarsenC])
// HALF-NEXT: xPack.Elem[coarsenC] = x[i[coarsenC]];
// HALF: coarsenAcc = coarsenC == 0 ? static_cast<float>(static_cast<float>(__half2float(xPack.Elem[coarsenC]))) : coarsenAcc + static_cast<float>(static_cast<float>(__half2float(xPack.Elem[coarsenC])));
// HALF: out[i[coarsenC]] = static_cast<float>(__half2float(xPack.Elem[coarsenC])) / part[0];
// HALF: } else {
// HALF: float v = in ? __half2float(x[i]) : 0.0f;
// HALF-NOT: float v[
// HALF: }
// PTX: ld.global.v4.b32
// ELEMENTS-NOT: Pack[1]
// ELEMENTS: float v[8];

// An int8 maximum with no guard, `T v = p[i];`: one 4-byte word for 4.
__global__ void plain_int8(int *out, const int8_t *x, int n) {
  __shared__ int part[1024];
  int v = x[blockIdx.x * n + threadIdx.x];
  part[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] = max(part[threadIdx.x], part[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}
// INT8: unsigned int Pack[1];
// INT8-NEXT: int8_t Elem[4];
// INT8-NOT: xAll
// INT8: if (&(x[blockIdx.x * n + (threadIdx.x * 4 + 3)]) == &(x[blockIdx.x * n + (threadIdx.x * 4 + 0)]) + 3 &&
// INT8: xPack.Pack[coarsenC] = 0u;
// INT8: xPack.Elem[coarsenC] = x[blockIdx.x * n + coarsenT];
// INT8: static_cast<int>(xPack.Elem[coarsenC])
// WORD: coarsen of plain_int8 by 2: loads=packs: 2 elements of 1 bytes fill no whole 4-byte word

// The conditional's type is float (int and float): v reads it as a float
// first, then as a double, as its initialisation does.
__global__ void cond_common(double *out, const int *x, int len, int n) {
  __shared__ double part[1024];
  const int i = blockIdx.x * n + threadIdx.x;
  double v = i < len ? x[i] : 0.0f;
  part[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}
// COMMON: uint2 Pack[1];
// COMMON-NEXT: int Elem[2];
// COMMON: static_cast<double>(static_cast<float>(xPack.Elem[coarsenC]))

__global__ void nonzero(float *out, const float *x, int len, int n) {
  __shared__ float part[1024];
  const int i = blockIdx.x * n + threadIdx.x;
  float v = 1.0f;
  if (i < len)
    v = x[i];
  part[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}
// NONZERO: coarsen of nonzero by 8: loads=packs: 'v' is not declared alone with a literal zero before `if (i < len)` loads it

__global__ void strided(float *out, const float *x, int n) {
  __shared__ float part[1024];
  float v = x[blockIdx.x * n + 2 * threadIdx.x];
  part[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}
// STRIDED: coarsen of strided by 8: loads=packs: the load's index does not rise by one per thread

__global__ void written(float *out, const float *x, int n) {
  __shared__ float part[1024];
  float v = x[blockIdx.x * n + threadIdx.x];
  v *= 2.0f;
  part[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}
// WRITTEN: coarsen of written by 8: loads=packs: 'v' is used other than read at {{[0-9]+}}:3 (only reads after its load can read the pack)

__global__ void writable(float *out, float *x, int n) {
  __shared__ float part[1024];
  float v = x[blockIdx.x * n + threadIdx.x];
  part[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}
// MUTABLE: coarsen of writable by 8: loads=packs: the load's element type `float` is not a const arithmetic type, __half or __nv_bfloat16

__global__ void no_load(float *out, int n) {
  __shared__ float part[1024];
  float v = blockIdx.x * n + threadIdx.x;
  part[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}
// A guard that calls a function of the file: evaluated again, it could act
// again.
__device__ bool keep(int i) { return i % 3 != 0; }
__global__ void guard_call(float *out, const float *x, int n) {
  __shared__ float part[1024];
  const int i = blockIdx.x * n + threadIdx.x;
  float v = keep(i) ? x[i] : 0.0f;
  part[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}
// GUARD: coarsen of guard_call by 8: loads=packs: the load's guard `keep(i)` may have side effects (a call other than a math function, an assignment) or reads 'v'
// RUN: %astra-opt --apply=coarsen:kernel=guard_call,extent=n %s > /dev/null

// NOLOAD: coarsen of no_load by 8: loads=packs: no per-thread value loaded before the leaf
// BADVALUE: loads
