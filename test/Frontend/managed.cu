// A __managed__ variable used by a kernel: nvcc gives it device storage in
// unified memory; Clang's CUDA mode ignores the attribute and would refuse the
// kernel ("reference to __host__ variable"). astra_nvcc_compat.h makes it a
// __device__ variable, so the kernel is modelled and compiled to PTX, where
// the variable is a .global (docs/nvcc-compat.md). Real-world case: the
// corpus's cuda-samples file with a managed function-pointer table
// (docs/benchmarks.md section 7, failure class 1).
// REQUIRES: cuda-headers, libdevice
// RUN: %astra-opt --print-kernel-model %s 2>&1 | FileCheck %s
// RUN: %astra-opt --emit-ptx %s -o - 2>&1 | FileCheck %s --check-prefix=PTX
// Without the compatibility header it fails as before.
// RUN: not %astra-opt --extra-arg=-DASTRA_NO_NVCC_COMPAT --emit-ptx %s -o - 2>&1 | FileCheck %s --check-prefix=OFF

__managed__ int *p;
__managed__ float scale = 2.0f;

__global__ void k(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] *= scale;
  if (i == 0)
    *p = 1;
}

// Host code using the variable as nvcc allows still compiles.
int main() {
  scale = 3.0f;
  k<<<1, 32>>>(nullptr, 0);
  return (int)scale;
}

// CHECK-NOT: {{error|warning}}:
// CHECK: "name": "k"
// PTX-NOT: error:
// PTX-DAG: .global .align 8 .u64 p;
// PTX-DAG: .global .align 4 .f32 scale = 0f40000000;
// PTX: .entry _Z1kPfi
// OFF: error: reference to __host__ variable
