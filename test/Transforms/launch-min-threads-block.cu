// min-threads holds for a tunable value and its new block size too: below
// the bound the spec's launch stays as it is, block included. A <<<...>>> in
// the file is then not edited (one block size for every launch would be
// wrong below the bound): a warning says to change it by hand, as the
// contract says. A __launch_bounds__ only grows: it is a maximum, and the
// smaller launches keep the old block. A block size held in a macro (here
// the bound's) is refused: one value for every launch. Without min-threads
// both are edited.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=launch:kernel=scale,B=128,block=128,min-threads=1048576 %s 2> %t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: %astra-opt --apply=launch:kernel=scale,B=128,block=128 %s | FileCheck %s --check-prefix=ALL
// RUN: %astra-opt --apply=launch:kernel=bounded,B=128,block=128,min-threads=1048576 %s 2> %t.lb.err | FileCheck %s --check-prefix=KEEP
// RUN: FileCheck %s --check-prefix=KEEPWARN < %t.lb.err
// RUN: %astra-opt --apply=launch:kernel=bounded,B=512,block=512,min-threads=1048576 %s | FileCheck %s --check-prefix=GROW
// RUN: %astra-opt --apply=launch:kernel=bounded,B=128,block=128 %s | FileCheck %s --check-prefix=SHRINK
// RUN: not %astra-opt --apply=launch:kernel=macro,B=512,block=512,min-threads=1048576 %s 2>&1 | FileCheck %s --check-prefix=MACRO

#include <cuda_runtime.h>

__global__ void scale(float *out, const float *in, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    out[i] = a * in[i];
}

__global__ void __launch_bounds__(256) bounded(float *out, const float *in,
                                               int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    out[i] = 2.0f * in[i];
}

#define MACRO_BOUND 256

__global__ void __launch_bounds__(MACRO_BOUND) macro(float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    out[i] = 0.0f;
}

void launch_scale(float *out, const float *in, float a, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(out, in, a, n);
}

// CHECK: {{^}}  scale<<<(n + 255) / 256, 256, 0, s>>>(out, in, a, n);
// CHECK-NOT: {{^}}  scale<<<{{.*}}128

// WARN: warning: {{.*}}the launch at {{[0-9]+}}:3 changes its block only from 1048576 threads on: change it by hand, as the launch contract in the plan and the report says

// ALL: {{^}}  scale<<<(n + 255) / 256, 128, 0, s>>>(out, in, a, n);

// KEEP: {{^}}__global__ void __launch_bounds__(256) bounded(
// KEEPWARN: warning: {{.*}}__launch_bounds__ at {{[0-9]+}}:{{[0-9]+}} stays 256: below min-threads the launch keeps its old block, which a bound of 128 would forbid

// GROW: {{^}}__global__ void __launch_bounds__(512) bounded(

// SHRINK: {{^}}__global__ void __launch_bounds__(128) bounded(

// MACRO: the block size is the constant MACRO_BOUND: it cannot change only from min-threads on (one value for every launch)
