// The launch divides only the extents vectorize-loads' any-grid form
// strides over: spmm_csr's column index (blockIdx.y * blockDim.x +
// threadIdx.x) strides over gridDim.y * blockDim.x, so grid-y-div and
// block-x-div are accepted there and grid-x-div (the rows) is refused;
// gelu_and_mul's form strides over gridDim.x, so grid-y-div (its tokens) is
// refused. A <<<...>>> in the file is left to the caller with a warning.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=vectorize-loads:any-grid=1 --apply=launch:grid-y-div=4 %kernels/spmm_csr.cu | FileCheck %s --check-prefix=Y
// RUN: %astra-opt --apply=vectorize-loads:any-grid=1 --apply=launch:block-x-div=4 %kernels/spmm_csr.cu | FileCheck %s --check-prefix=Y
// RUN: not %astra-opt --apply=vectorize-loads:any-grid=1 --apply=launch:grid-x-div=4 %kernels/spmm_csr.cu 2>&1 | FileCheck %s --check-prefix=NOX
// RUN: not %astra-opt --apply=vectorize-loads:any-grid=1 --apply=launch:grid-y-div=2 %kernels/gelu_and_mul.cu 2>&1 | FileCheck %s --check-prefix=NOY
// RUN: %astra-opt --apply=vectorize-loads:kernel=cols,any-grid=1 --apply=launch:kernel=cols,grid-y-div=2 %s 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN

// Y: // astra-opt vectorize-loads: any grid (every element below the bound, grid-stride)
// Y-NEXT: const int vecStride = static_cast<int>(static_cast<unsigned long long>(gridDim.y) * blockDim.x);
// NOX: launch of spmm_csr: grid-x-div divides an extent that vectorize-loads' form does not stride over (its stride: `const int vecStride = static_cast<int>(static_cast<unsigned long long>(gridDim.y) * blockDim.x);`)
// NOY: launch of gelu_and_mul: grid-y-div divides an extent that vectorize-loads' form does not stride over (its stride: `const int vecStride = static_cast<int>(static_cast<unsigned long long>(gridDim.x) * blockDim.x);`)
// WARN: warning: {{.*}}the launch at {{[0-9]+}}:{{[0-9]+}} must divide its grid's y extent: change it by hand

#include <cuda_runtime.h>

__global__ void cols(float *out, const float *in, int rows, int n) {
  const int r = blockIdx.x;
  const int c = blockIdx.y * blockDim.x + threadIdx.x;
  if (r >= rows || c >= n) return;
  out[(size_t)r * n + c] = 2.0f * in[(size_t)r * n + c];
}

void launch(float *out, const float *in, int rows, int n) {
  cols<<<dim3(rows, (n + 255) / 256), 256>>>(out, in, rows, n);
}
