// Host emulation of the CUDA execution model, just enough for the suite:
// each block runs on its own set of std::threads (one per CUDA thread),
// blocks run one after another, __syncthreads is a std::barrier.
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>
#include <math.h>
#undef __global__
#undef __device__
#undef __shared__
#undef __host__
#define __global__
#define __device__
#define __shared__ static
#define __host__

thread_local uint3 emu_threadIdx, emu_blockIdx;
dim3 emu_gridDim, emu_blockDim;
std::barrier<>* emu_barrier;
#define threadIdx emu_threadIdx
#define blockIdx emu_blockIdx
#define gridDim emu_gridDim
#define blockDim emu_blockDim
inline void __syncthreads() { emu_barrier->arrive_and_wait(); }
inline float atomicAdd(float* p, float v) {
  return std::atomic_ref<float>(*p).fetch_add(v);
}
// Threads that leave the kernel early must drop out of the barrier.
template <typename F, typename... A>
void emu_launch(F* kernel, dim3 grid, dim3 block, A... args) {
  emu_gridDim = grid;
  emu_blockDim = block;
  unsigned n = block.x * block.y * block.z;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        std::barrier<> bar(n);
        emu_barrier = &bar;
        std::vector<std::thread> ts;
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx)
              ts.emplace_back([=, &bar] {
                emu_blockIdx = make_uint3(bx, by, bz);
                emu_threadIdx = make_uint3(tx, ty, tz);
                kernel(args...);
                bar.arrive_and_drop();
              });
        for (auto& t : ts) t.join();
      }
}
