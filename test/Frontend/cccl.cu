// nvcc's include world: CUDA 13 keeps Thrust, CUB and libcu++ under
// include/cccl, which nvcc searches; so does astra-opt.
// REQUIRES: cuda-headers
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s
// RUN: %astra-opt --emit-ptx %s | FileCheck %s --check-prefix=PTX

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <cuda/barrier>
#include <cuda/std/type_traits>
#include <thrust/complex.h>

namespace cg = cooperative_groups;

template <typename T>
using Acc = cuda::std::conditional_t<cuda::std::is_same_v<T, double>, double,
                                     float>;

__global__ void row_sum(float *out, const float *in, int cols) {
  using Reduce = cub::BlockReduce<float, 128>;
  __shared__ typename Reduce::TempStorage tmp;
  float v = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    v += in[blockIdx.x * cols + c];
  float s = Reduce(tmp).Sum(v);
  if (threadIdx.x == 0)
    out[blockIdx.x] = s;
}

__global__ void warp_norm(float *out, const thrust::complex<float> *in,
                          int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Acc<float> v = i < n ? thrust::abs(in[i]) : 0.f;
  float s = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0)
    out[i / 32] = s;
}

using Barrier = cuda::barrier<cuda::thread_scope_block>;

// Clang rejects a __shared__ variable with a constructor (nvcc warns): the
// barrier lives in raw shared storage, as Clang users write it.
__global__ void staged_copy(float *out, const float *in, int n) {
  __shared__ alignas(Barrier) unsigned char storage[sizeof(Barrier)];
  __shared__ float stage[256];
  Barrier *bar = reinterpret_cast<Barrier *>(storage);
  if (threadIdx.x == 0)
    init(bar, blockDim.x);
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  stage[threadIdx.x] = i < n ? in[i] : 0.f;
  bar->arrive_and_wait();
  if (i < n)
    out[i] = stage[blockDim.x - 1 - threadIdx.x];
}

// CHECK: "name": "row_sum",
// CHECK: "name": "warp_norm",
// CHECK: "name": "staged_copy",

// PTX: .entry _Z7row_sumPfPKfi(
// PTX: .entry _Z9warp_normPfPKN6thrust{{.*}}complexIfEEi(
// PTX: .entry _Z11staged_copyPfPKfi(
