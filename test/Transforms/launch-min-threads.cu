// A size-dependent launch: launch:min-threads=N divides the grid only where
// the launch has at least N threads. The any-grid form packs only under a
// shrunk launch (its guard tests the grid-stride against the bound), so an
// undivided launch runs the original code; an integer <<<...>>> in the file
// is not divided (that would need a conditional launch): a warning says so,
// and the PTX is the any-grid form's.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=vectorize-loads:kernel=scale,any-grid=1 --apply=launch:kernel=scale,grid-x-div=4,min-threads=1048576 %s 2> %t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: not %astra-opt --apply=launch:kernel=scale,grid-x-div=4,min-threads=1048576 %s 2>&1 | FileCheck %s --check-prefix=NOANY

#include <cuda_runtime.h>

__global__ void scale(float *out, const float *in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = a * in[i];
}

void launch_scale(float *out, const float *in, float a, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(out, in, a, n);
}

// CHECK:      const int vecStride = static_cast<int>(static_cast<unsigned long long>(gridDim.x) * blockDim.x);
// CHECK-NEXT: if (vecStride < n &&
// CHECK:      // The original, grid-stride.
// CHECK:      {{^}}  scale<<<(n + 255) / 256, 256, 0, s>>>(out, in, a, n);

// WARN: warning: {{.*}}the launch at {{[0-9]+}}:3 changes its grid only from 1048576 threads on: change it by hand, as the launch contract in the plan and the report says

// NOANY: dividing the grid or the block needs a kernel whose threads cover every element for any grid
