// copy-ceiling.cu: how long a copy of B bytes takes under the harness's
// timing protocol (docs/harness.md, "Timing"), for each B on the command
// line: half of B read, half written, by the faster of a 16-byte grid-stride
// copy kernel and cudaMemcpyAsync (device to device), each launched in batches over distinct buffers (so that each launch starts
// from DRAM, as the harness's copies of a kernel's buffers do), L2 flushed
// before each batch, the stream held by a spin kernel while the batch is
// queued, a batch long enough for ~100 us, and the median over rounds of
// microseconds per launch. bench/copy-ceiling.py divides a kernel's
// original time on a shape by this copy's time for the shape's bytes: the
// most any rewrite that still moves those bytes could gain there, with
// launch overhead and the ramp of small transfers included (where the old
// ceiling counted the bandwidth of a 1 GiB copy).
//
//   nvcc -O3 -arch=sm_90 -o copy-ceiling copy-ceiling.cu
//   ./copy-ceiling B...   # prints "bytes us batch rounds kernel_us memcpy_us"
//
// Standalone (nvcc on the GPU machine): not part of the CMake build.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#define CHECK(X)                                                               \
  do {                                                                         \
    cudaError_t Err = (X);                                                     \
    if (Err != cudaSuccess) {                                                  \
      fprintf(stderr, "copy-ceiling: %s: %s\n", #X, cudaGetErrorString(Err)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

// Four 16-byte loads in flight per thread, then the rest one by one.
__global__ void copy16(uint4 *__restrict__ Dst, const uint4 *__restrict__ Src,
                       size_t N) {
  size_t Stride = size_t(gridDim.x) * blockDim.x;
  size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; I + 3 * Stride < N; I += 4 * Stride) {
    uint4 A = Src[I], B = Src[I + Stride], C = Src[I + 2 * Stride],
          D = Src[I + 3 * Stride];
    Dst[I] = A;
    Dst[I + Stride] = B;
    Dst[I + 2 * Stride] = C;
    Dst[I + 3 * Stride] = D;
  }
  for (; I < N; I += Stride)
    Dst[I] = Src[I];
}

__global__ void spin(unsigned long long Ns) {
  unsigned long long T0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T0));
  for (;;) {
    unsigned long long T;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T));
    if (T - T0 >= Ns)
      break;
  }
}

static double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : 0.5 * (V[N / 2 - 1] + V[N / 2]);
}

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    fprintf(stderr, "usage: copy-ceiling BYTES...\n");
    return 1;
  }
  cudaDeviceProp P;
  CHECK(cudaGetDeviceProperties(&P, 0));
  size_t FlushBytes = 2 * size_t(P.l2CacheSize);
  void *Flush = nullptr;
  CHECK(cudaMalloc(&Flush, FlushBytes));
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  cudaEvent_t E0, E1;
  CHECK(cudaEventCreate(&E0));
  CHECK(cudaEventCreate(&E1));
  printf("# %s, %d SMs, L2 %d bytes\n", P.name, P.multiProcessorCount,
         P.l2CacheSize);
  for (int A = 1; A < Argc; ++A) {
    double Bytes = strtod(Argv[A], nullptr);
    // Half read, half written, whole 16-byte elements (at least one).
    size_t N = std::max<size_t>(1, size_t(Bytes / 2) / 16);
    unsigned Threads = 256;
    size_t Blocks = std::min<size_t>((N + Threads - 1) / Threads,
                                     size_t(P.multiProcessorCount) * 8);
    size_t Free = 0, Total = 0;
    CHECK(cudaMemGetInfo(&Free, &Total));
    auto Measure = [&](std::vector<uint4 *> &Buf, unsigned Batch,
                       unsigned Round, bool Memcpy) {
      CHECK(cudaMemsetAsync(Flush, int(Round & 0xff), FlushBytes, S));
      spin<<<1, 1, 0, S>>>(20000 + 4000ull * Batch);
      CHECK(cudaEventRecord(E0, S));
      for (unsigned C = 0; C < Batch; ++C)
        if (Memcpy)
          CHECK(cudaMemcpyAsync(Buf[2 * C + 1], Buf[2 * C], N * sizeof(uint4),
                                cudaMemcpyDeviceToDevice, S));
        else
          copy16<<<unsigned(Blocks), Threads, 0, S>>>(Buf[2 * C + 1],
                                                      Buf[2 * C], N);
      CHECK(cudaEventRecord(E1, S));
      CHECK(cudaEventSynchronize(E1));
      float Ms = 0;
      CHECK(cudaEventElapsedTime(&Ms, E0, E1));
      return double(Ms) * 1e3 / Batch;
    };
    auto Alloc = [&](std::vector<uint4 *> &Buf, unsigned Batch) {
      while (Buf.size() < 2 * size_t(Batch)) {
        uint4 *B = nullptr;
        CHECK(cudaMalloc(&B, N * sizeof(uint4)));
        CHECK(cudaMemsetAsync(B, 0x3f, N * sizeof(uint4), S));
        Buf.push_back(B);
      }
    };
    std::vector<uint4 *> Buf;
    Alloc(Buf, 1);
    double Est = 1e30;
    for (unsigned R = 0; R < 3; ++R)
      Est = std::min(Est, Measure(Buf, 1, R, false));
    unsigned Batch = 1;
    if (Est < 100) {
      unsigned Want = unsigned(100.0 / std::max(Est, 1.0)) + 1;
      size_t Cap = std::min<size_t>(Free / 4, size_t(4) << 30) /
                   (2 * N * sizeof(uint4));
      Batch = unsigned(std::min<size_t>({size_t(Want), size_t(63), Cap}));
      Batch = std::max(1u, Batch);
    }
    Alloc(Buf, Batch);
    const unsigned Rounds = 31;
    double Us[2];
    for (int M = 0; M < 2; ++M) {
      Measure(Buf, Batch, 0, M == 1);
      std::vector<double> T;
      for (unsigned R = 0; R < Rounds; ++R)
        T.push_back(Measure(Buf, Batch, R + 1, M == 1));
      Us[M] = median(T);
    }
    printf("%.0f %.3f %u %u %.3f %.3f\n", Bytes, std::min(Us[0], Us[1]), Batch,
           Rounds, Us[0], Us[1]);
    fflush(stdout);
    for (uint4 *B : Buf)
      CHECK(cudaFree(B));
  }
  return 0;
}
