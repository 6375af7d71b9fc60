// The launch rewrite: a kernel's launch bounds and its <<<...>>> launches in
// the file, tunable variables (the spec says which) and a grid divided only
// after vectorize-loads' any-grid form; its refusals; the any-grid form itself
// (return and block forms), and --list-rewrites.
// REQUIRES: cuda-headers
//
// A tunable block: __launch_bounds__ and the integer block of the launch
// follow block=; a dim3 argument is left with a warning.
// RUN: %astra-opt --apply=launch:kernel=scale,B=512,block=512 %s 2> %t.err | FileCheck %s --check-prefix=BLOCK
// RUN: FileCheck %s --check-prefix=BLOCK-ERR --allow-empty < %t.err
// RUN: %astra-opt --apply=launch:block=64 %s 2>&1 | FileCheck %s --check-prefix=DIM3
//
// The any-grid form, then the grid divided by 4.
// RUN: %astra-opt --apply=vectorize-loads:kernel=scale,any-grid=1 --apply=launch:kernel=scale,grid-x-div=4 %s | FileCheck %s --check-prefix=SHRINK
// RUN: %astra-opt --apply=vectorize-loads:kernel=shift,any-grid=1 %s | FileCheck %s --check-prefix=ANYBLOCK
// RUN: %astra-opt --apply=vectorize-loads:kernel=scale,any-grid=1 --apply=launch:kernel=scale,grid-x-div=4 --emit-ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
//
// Refusals.
// RUN: not %astra-opt --apply=launch:kernel=scale,grid-x-div=4 %s 2>&1 | FileCheck %s --check-prefix=NOANY
// RUN: not %astra-opt --apply=vectorize-loads:kernel=scale --apply=launch:kernel=scale,grid-x-div=4 %s 2>&1 | FileCheck %s --check-prefix=NOANY
// RUN: not %astra-opt --apply=launch:kernel=scale,B=512 %s 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not %astra-opt --apply=launch %s 2>&1 | FileCheck %s --check-prefix=NOTHING
// RUN: not %astra-opt --apply=launch:B=0 %s 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not %astra-opt --apply=vectorize-loads:kernel=early,any-grid=1 %s 2>&1 | FileCheck %s --check-prefix=RETURNS
//
// --list-rewrites: where launch applies and why not.
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST

#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) scale(float *out, const float *in,
                                             float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = a * in[i];
}

__global__ void shift(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] + 1.0f;
  }
}

__global__ void early(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v < 0.0f)
    return;
  out[i] = v;
}

void launch_scale(float *out, const float *in, float a, int n,
                  cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(out, in, a, n);
}

void launch_shift(float *out, const float *in, int n) {
  dim3 grid((n + 127) / 128), block(128);
  shift<<<grid, block>>>(out, in, n);
}

// BLOCK: __global__ void __launch_bounds__(512) scale(float *out, const float *in,
// BLOCK: scale<<<(n + 255) / 256, 512, 0, s>>>(out, in, a, n);
// BLOCK: shift<<<grid, block>>>(out, in, n);
// BLOCK-ERR-NOT: warning

// DIM3: warning: the launch at {{[0-9]+}}:3 passes its block as a dim3: change it by hand, as the launch contract in the plan and the report says
// DIM3: __launch_bounds__(64) scale(
// DIM3: scale<<<(n + 255) / 256, 64, 0, s>>>(out, in, a, n);
// DIM3: shift<<<grid, block>>>(out, in, n);

// SHRINK:      int i = blockIdx.x * blockDim.x + threadIdx.x;
// SHRINK-NEXT: // astra-opt vectorize-loads: any grid (every element below the bound, grid-stride)
// SHRINK-NEXT: const int vecStride = static_cast<int>(static_cast<unsigned long long>(gridDim.x) * blockDim.x);
// SHRINK:      for (int vecIdx = i; vecIdx < n / VecW; vecIdx += vecStride) {
// SHRINK-NEXT:   const int i = vecIdx * VecW;
// SHRINK:      // Scalar tail: the last n % VecW elements, grid-stride.
// SHRINK-NEXT: for (int vecIdx = n / VecW * VecW + i; vecIdx < n; vecIdx += vecStride) {
// SHRINK-NEXT:   const int i = vecIdx;
// SHRINK-NEXT:   out[i] = a * in[i];
// SHRINK-NEXT: }
// SHRINK-NEXT: } else {
// SHRINK-NEXT: // The original, grid-stride.
// SHRINK-NEXT: for (int vecIdx = i; vecIdx < n; vecIdx += vecStride) {
// SHRINK-NEXT:   const int i = vecIdx;
// SHRINK-NEXT:   if (i >= n)
// SHRINK-NEXT:     return;
// SHRINK-NEXT:   out[i] = a * in[i];
// SHRINK-NEXT: }
// SHRINK:      scale<<<(((n + 255) / 256) + 3) / 4, 256, 0, s>>>(out, in, a, n);
// SHRINK:      shift<<<grid, block>>>(out, in, n);

// ANYBLOCK:      void shift(
// ANYBLOCK:      // The original, grid-stride.
// ANYBLOCK-NEXT: for (int vecIdx = i; vecIdx < n; vecIdx += vecStride) {
// ANYBLOCK-NEXT:   const int i = vecIdx;
// ANYBLOCK-NEXT:   if (i < n) {
// ANYBLOCK-NEXT:     out[i] = in[i] + 1.0f;

// PTX: .entry {{.*}}scale
// PTX: ld.global.v4.{{[bf]}}32

// NOANY: error: rewrite 'launch' does not apply to kernel scale
// NOANY-NEXT: launch.cu:{{[0-9]+}}:{{[0-9]+}}: note: launch of scale: dividing the grid or the block needs a kernel whose threads cover every element for any grid: apply vectorize-loads:any-grid=1 first (one element per thread)

// BOUNDS: note: launch of scale: the kernel declares __launch_bounds__: give block=<threads per block> of the new launch so that it is rewritten too

// NOTHING: error: rewrite 'launch' does not apply
// NOTHING-NEXT: note: launch of scale: nothing to change: give a tunable variable of the spec (B=512), grid-x-div, block-x-div, fold-x, fold-y, block, or min-threads with small-entry=1

// ZERO: error: rewrite 'launch': parameter 'B' (a tunable launch variable) takes a positive integer, got '0'

// RETURNS: note: one element per thread: the body contains a return

// LIST: launch scale: does not apply: launch of scale: nothing to change
// LIST: launch shift: does not apply: launch of shift: nothing to change
