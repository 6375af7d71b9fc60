// The launch rewrite on block sizes written as constants: the constant's
// initializer carries the new block size (the launch, __launch_bounds__, the
// shared arrays and strides of the body follow), in source and in PTX (the
// entry's .maxntid and its shared array); a macro; a local constant of the
// launcher;
// block-x-div on a constant; --list-rewrites says where a new block goes.
// Refusals (constants used elsewhere, template kernels) are in
// launch-const-refuse.cu.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=launch:kernel=tile_sum,B=512,block=512 %s 2> %t.err | FileCheck %s --check-prefix=TILE
// RUN: FileCheck %s --check-prefix=NOWARN --allow-empty < %t.err
// RUN: %astra-opt --apply=launch:kernel=tile_sum,B=512,block=512 --emit-ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %astra-opt --emit-ptx %s -o %t.orig.ptx
// RUN: FileCheck %s --check-prefix=PTX-ORIG < %t.orig.ptx
// RUN: %astra-opt --apply=launch:kernel=scale,B=64,block=64 %s | FileCheck %s --check-prefix=STATIC
// RUN: %astra-opt --apply=launch:kernel=shift,block=1024 %s 2> %t.local.err | FileCheck %s --check-prefix=LOCAL
// RUN: FileCheck %s --check-prefix=LOCAL-WARN < %t.local.err
// RUN: %astra-opt --apply=vectorize-loads:kernel=scale,any-grid=1 --apply=launch:kernel=scale,block-x-div=2 %s | FileCheck %s --check-prefix=DIV
// RUN: %astra-opt --apply=launch:kernel=mtile,block=128 %s | FileCheck %s --check-prefix=MACRO
// RUN: %astra-opt --apply=launch:kernel=mtile,block=128 --emit-ptx %s -o %t.macro.ptx
// RUN: FileCheck %s --check-prefix=MACRO-PTX < %t.macro.ptx
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST

#include <cuda_runtime.h>

#define MTILE 64

constexpr int kBlock = 256;
static const int kThreads = 128;

// Sums each tile of kBlock elements: the shared array and the tree are
// written for kBlock threads.
__global__ void __launch_bounds__(kBlock)
    tile_sum(float *out, const float *in, int n) {
  __shared__ float s[kBlock];
  int i = blockIdx.x * kBlock + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int h = kBlock / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h)
      s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}

__global__ void scale(float *out, const float *in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = a * in[i];
  }
}

__global__ void shift(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 1.0f;
}

// The same with a macro: the #define carries the block size.
__global__ void __launch_bounds__(MTILE) mtile(float *out, const float *in,
                                               int n) {
  __shared__ float s[MTILE];
  int i = blockIdx.x * MTILE + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int j = 0; j < MTILE; ++j)
      t += s[j];
    out[blockIdx.x] = t;
  }
}

void launch_mtile(float *out, const float *in, int n) {
  mtile<<<(n + MTILE - 1) / MTILE, MTILE>>>(out, in, n);
}

void launch_tile_sum(float *out, const float *in, int n, cudaStream_t s) {
  tile_sum<<<(n + kBlock - 1) / kBlock, kBlock, 0, s>>>(out, in, n);
}

void launch_scale(float *out, const float *in, float a, int n) {
  scale<<<(n + kThreads - 1) / kThreads, kThreads>>>(out, in, a, n);
}

void launch_shift(float *out, const float *in, int n) {
  const int threads = 256;
  shift<<<(n + 255) / 256, threads>>>(out, in, n);
}

// A local constant that host code reads besides the launch: the launch is
// set in place (no kernel can read a local), with a warning; so is a block
// computed from it.
void launch_shift_twice(float *out, const float *in, int n) {
  const int per = 128;
  int blocks = (n + per - 1) / per;
  shift<<<blocks, per>>>(out, in, n);
  shift<<<blocks, per>>>(out, out, n);
  shift<<<blocks / 2, per * 2>>>(out, out, n);
}

// TILE:      constexpr int kBlock = 512;
// TILE-NEXT: static const int kThreads = 128;
// TILE:      __global__ void __launch_bounds__(kBlock)
// TILE:      __shared__ float s[kBlock];
// TILE:      tile_sum<<<(n + kBlock - 1) / kBlock, kBlock, 0, s>>>(out, in, n);
// TILE:      scale<<<(n + kThreads - 1) / kThreads, kThreads>>>(out, in, a, n);
// NOWARN-NOT: warning

// PTX-ORIG:      .entry {{.*}}tile_sum
// PTX-ORIG:      .maxntid 256{{ |,|$}}
// PTX-ORIG:      .shared .align 4 .b8 {{.*}}[1024];
// PTX:      .entry {{.*}}tile_sum
// PTX:      .maxntid 512{{ |,|$}}
// PTX:      .shared .align 4 .b8 {{.*}}[2048];

// STATIC:      constexpr int kBlock = 256;
// STATIC-NEXT: static const int kThreads = 64;
// STATIC:      scale<<<(n + kThreads - 1) / kThreads, kThreads>>>(out, in, a, n);

// LOCAL:      const int threads = 1024;
// LOCAL-NEXT: shift<<<(n + 255) / 256, threads>>>(out, in, n);
// LOCAL:      const int per = 128;
// LOCAL-NEXT: int blocks = (n + per - 1) / per;
// LOCAL-NEXT: shift<<<blocks, 1024>>>(out, in, n);
// LOCAL-NEXT: shift<<<blocks, 1024>>>(out, out, n);
// LOCAL-NEXT: shift<<<blocks / 2, 1024>>>(out, out, n);
// LOCAL-WARN: warning: the block `per` at {{[0-9]+}}:19 is a local constant that the host code reads too: set in the launch only; what the host code computes from it (e.g. the grid) keeps the old value
// LOCAL-WARN-NOT: warning

// DIV:      static const int kThreads = 64;
// DIV:      scale<<<(n + kThreads - 1) / kThreads, kThreads>>>(out, in, a, n);

// MACRO:      #define MTILE 128
// MACRO:      __global__ void __launch_bounds__(MTILE) mtile(
// MACRO:      mtile<<<(n + MTILE - 1) / MTILE, MTILE>>>(out, in, n);
// MACRO-PTX:  .entry {{.*}}mtile
// MACRO-PTX:  .maxntid 128{{ |,|$}}
// MACRO-PTX:  .shared .align 4 .b8 {{.*}}[512];

// LIST: launch tile_sum: does not apply: launch of tile_sum: nothing to change: give a tunable variable of the spec (B=512), grid-x-div, block-x-div, fold-x, fold-y, block, or min-threads with small-entry=1; a new block size (block=) goes into the constant kBlock
// LIST: launch scale: does not apply: launch of scale: nothing to change: {{.*}}; a new block size (block=) goes into the constant kThreads
// LIST: launch shift: does not apply: launch of shift: nothing to change: {{.*}}; a new block size (block=) goes into the constant threads
// LIST: launch mtile: does not apply: launch of mtile: nothing to change: {{.*}}; a new block size (block=) goes into the macro MTILE
