// Host emulation of the CUDA execution model, just enough for the suite:
// each block runs on its own set of std::threads (one per CUDA thread),
// blocks run one after another, __syncthreads is a std::barrier. Warp
// shuffles (__shfl_sync, __shfl_down_sync, __shfl_xor_sync; every lane of
// the warp taking part, as a full mask says) exchange through slots of the
// thread's warp between two barriers of that warp's threads.
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
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
struct EmuWarp {
  std::unique_ptr<std::barrier<>> bar;
  uint64_t slot[32];
};
thread_local EmuWarp* emu_warp;
thread_local unsigned emu_lane;
// Lane `src` of the thread's segment of `width` lanes, or the thread's own
// value when `src` falls outside it (as the hardware does).
template <typename T>
T emu_shfl(T var, unsigned src, bool inSegment) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "shuffles move 4 or 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  emu_warp->slot[emu_lane] = bits;
  emu_warp->bar->arrive_and_wait();
  uint64_t got = inSegment ? emu_warp->slot[src] : bits;
  emu_warp->bar->arrive_and_wait();
  T out;
  std::memcpy(&out, &got, sizeof(T));
  return out;
}
template <typename T>
T __shfl_sync(unsigned, T var, int srcLane, int width = 32) {
  unsigned seg = emu_lane / width * width;
  return emu_shfl(var, seg + (unsigned)srcLane % width, true);
}
template <typename T>
T __shfl_down_sync(unsigned, T var, unsigned delta, int width = 32) {
  unsigned seg = emu_lane / width * width, src = emu_lane + delta;
  return emu_shfl(var, src, src < seg + width);
}
template <typename T>
T __shfl_xor_sync(unsigned, T var, int laneMask, int width = 32) {
  unsigned seg = emu_lane / width * width, src = emu_lane ^ laneMask;
  return emu_shfl(var, src, src >= seg && src < seg + width);
}
// Threads that leave the kernel early must drop out of the barriers.
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
        std::vector<EmuWarp> warps((n + 31) / 32);
        for (unsigned w = 0; w < warps.size(); ++w)
          warps[w].bar = std::make_unique<std::barrier<>>(
              std::min(32u, n - 32 * w));
        std::vector<std::thread> ts;
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx)
              ts.emplace_back([=, &bar, &warps] {
                emu_blockIdx = make_uint3(bx, by, bz);
                emu_threadIdx = make_uint3(tx, ty, tz);
                unsigned lin = tx + block.x * (ty + block.y * tz);
                emu_warp = &warps[lin / 32];
                emu_lane = lin % 32;
                kernel(args...);
                emu_warp->bar->arrive_and_drop();
                bar.arrive_and_drop();
              });
        for (auto& t : ts) t.join();
      }
}
// FNV-1a of N bytes: the test drivers print a hash per output.
inline uint64_t emu_hash(const void* p, size_t n,
                         uint64_t h = 1469598103934665603ull) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}
