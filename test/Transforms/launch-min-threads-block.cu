// min-threads holds for a new block size too: below the bound the spec's
// launch stays as it is, block included. A <<<...>>> in the file is then
// not edited (one block size for every launch would be wrong below the
// bound): a warning says to change it by hand, as the contract says. A kernel
// with __launch_bounds__ is refused: the bound would forbid the old block
// that the smaller launches keep.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=launch:kernel=scale,block=128,min-threads=1048576 %s 2> %t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: not %astra-opt --apply=launch:kernel=bounded,block=128,min-threads=1048576 %s 2>&1 | FileCheck %s --check-prefix=LB
// RUN: %astra-opt --apply=launch:kernel=bounded,block=128 %s | FileCheck %s --check-prefix=LBOK

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

void launch_scale(float *out, const float *in, float a, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(out, in, a, n);
}

// CHECK: scale<<<(n + 255) / 256, 256, 0, s>>>(out, in, a, n);

// WARN: warning: {{.*}}the launch at {{[0-9]+}}:3 changes its block only from 1048576 threads on: change it by hand, as the launch contract in the plan and the report says

// LB: the kernel declares __launch_bounds__, one block size for every launch: with min-threads the smaller launches keep the old block, which a new bound would forbid; drop min-threads

// LBOK: __launch_bounds__(128) bounded
