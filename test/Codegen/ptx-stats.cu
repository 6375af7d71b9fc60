// REQUIRES: cuda-headers, ptxas
// RUN: %astra-opt --ptx-stats %s | FileCheck %s
// RUN: %astra-opt --emit-ptx --ptx-stats %s -o %t.ptx | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// Without ptxas: a clear message, exit 1.
// RUN: not env PATH=/nonexistent CUDA_HOME= %astra-opt --ptx-stats --cuda-path=%cuda_path/../nonexistent-cuda %s 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK: kernel regs stack spill-st spill-ld smem
// CHECK: block_sum(float const*, float*, int) {{ *[0-9]+ +0 +0 +0 +1024}}
// PTX: .entry _Z9block_sumPKfPfi
// MISSING: error: --ptx-stats: ptxas is missing

__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float buf[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}
