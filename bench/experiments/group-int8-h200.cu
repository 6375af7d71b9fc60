// What per_token_group_int8_quant can reach on an H200 (issue 9, item 6):
// hand-written forms of the kernel at the suite's largest shape, none with a
// fallback, each checked against the original (|diff| <= 1, scales within
// 1e-6 relative) and timed by cudaEvent medians of 41 launches, with the
// copy of the same bytes beside them. Not part of the build:
//   nvcc -O3 -arch=sm_90 -o v group-int8-h200.cu && ./v
// Forms: E elements per thread (8, 16, 32: one, two or four 16-byte packs),
// the group's max by shuffles over its 128/E lanes, one store per thread;
// blocks of 128 or 256 threads; and a persistent grid whose warps loop over
// the groups with the next group's packs loaded before this one's max.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <algorithm>
#include <vector>

__global__ void orig(int8_t* out, float* scales, const __nv_bfloat16* input,
                     int d, int group_size) {
  __shared__ float partial[1024];
  const int group = blockIdx.x;
  const int64_t token = blockIdx.y;
  const int num_groups = (d + group_size - 1) / group_size;
  const int i = group * group_size + threadIdx.x;
  const bool active = i < d;
  float v = 0.0f;
  if (active) v = __bfloat162float(input[token * d + i]);
  partial[threadIdx.x] = fabsf(v);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  const float gs = fmaxf(partial[0], 1e-10f) / 127.0f;
  if (threadIdx.x == 0) scales[token * num_groups + group] = gs;
  if (active) {
    float q = rintf(v / gs);
    q = fminf(fmaxf(q, -128.0f), 127.0f);
    out[token * d + i] = static_cast<int8_t>(q);
  }
}

template <int P>  // packs of 8 bf16 per thread
struct Packs {
  uint4 u[P];
};

template <int P>
__device__ __forceinline__ void quantStore(const Packs<P>& in, float m,
                                           int8_t* o, float* sc, bool lead) {
  const float gs = fmaxf(m, 1e-10f) / 127.0f;
  if (lead) *sc = gs;
  uint32_t w[2 * P];
#pragma unroll
  for (int p = 0; p < P; ++p) {
    const __nv_bfloat16* h = reinterpret_cast<const __nv_bfloat16*>(&in.u[p]);
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      uint32_t word = 0;
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        float q = rintf(__bfloat162float(h[4 * k + c]) / gs);
        q = fminf(fmaxf(q, -128.0f), 127.0f);
        word |= (uint32_t)(uint8_t)(int8_t)q << (8 * c);
      }
      w[2 * p + k] = word;
    }
  }
  if (P == 1) {
    *reinterpret_cast<uint2*>(o) = make_uint2(w[0], w[1]);
  } else {
#pragma unroll
    for (int p = 0; p < P; p += 2)
      *reinterpret_cast<uint4*>(o + 16 * (p / 2)) =
          make_uint4(w[2 * p], w[2 * p + 1], w[2 * p + 2], w[2 * p + 3]);
  }
}

template <int P>
__device__ __forceinline__ float packMax(const Packs<P>& in) {
  float m = 0.0f;
#pragma unroll
  for (int p = 0; p < P; ++p) {
    const __nv_bfloat16* h = reinterpret_cast<const __nv_bfloat16*>(&in.u[p]);
#pragma unroll
    for (int c = 0; c < 8; ++c) m = fmaxf(m, fabsf(__bfloat162float(h[c])));
  }
  return m;
}

// One group per 128/(8P) lanes; thread t of the flat grid owns elements
// [8P t, 8P t + 8P) of the whole [T, d] array (d a multiple of 128 here).
template <int P>
__global__ void flat(int8_t* out, float* scales, const __nv_bfloat16* input,
                     int64_t n) {
  constexpr int L = 128 / (8 * P);  // lanes per group
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t e0 = t * 8 * P;
  if (e0 >= n) return;
  Packs<P> in;
#pragma unroll
  for (int p = 0; p < P; ++p)
    in.u[p] = *reinterpret_cast<const uint4*>(input + e0 + 8 * p);
  float m = packMax(in);
#pragma unroll
  for (int off = L / 2; off > 0; off >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off, L));
  quantStore(in, m, out + e0, scales + e0 / 128, (threadIdx.x % L) == 0);
}

// Persistent: each thread walks its slots with a stride of the whole grid,
// loading slot k+1's packs before it reduces slot k.
template <int P>
__global__ void persist(int8_t* out, float* scales,
                        const __nv_bfloat16* input, int64_t n) {
  constexpr int L = 128 / (8 * P);
  const int64_t stride = (int64_t)gridDim.x * blockDim.x * 8 * P;
  int64_t e0 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * 8 * P;
  if (e0 >= n) return;  // whole warps leave together (n a multiple of 4096)
  Packs<P> cur;
#pragma unroll
  for (int p = 0; p < P; ++p)
    cur.u[p] = *reinterpret_cast<const uint4*>(input + e0 + 8 * p);
  while (true) {
    const int64_t e1 = e0 + stride;
    const bool more = e1 < n;
    Packs<P> nxt;
    if (more) {
#pragma unroll
      for (int p = 0; p < P; ++p)
        nxt.u[p] = *reinterpret_cast<const uint4*>(input + e1 + 8 * p);
    }
    float m = packMax(cur);
#pragma unroll
    for (int off = L / 2; off > 0; off >>= 1)
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off, L));
    quantStore(cur, m, out + e0, scales + e0 / 128, (threadIdx.x % L) == 0);
    if (!more) break;
    cur = nxt;
    e0 = e1;
  }
}

__global__ void copyk(uint4* o, const uint4* i, size_t n) {
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
       k += (size_t)gridDim.x * blockDim.x)
    o[k] = i[k];
}

#define CK(x)                                                        \
  do {                                                               \
    cudaError_t e_ = (x);                                            \
    if (e_ != cudaSuccess) {                                         \
      printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                      \
    }                                                                \
  } while (0)

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int shapes[2][2] = {{512, 13824}, {16384, 8192}};
  for (auto& sh : shapes) {
    const int T = sh[0], d = sh[1], gs = 128, G = d / gs;
    const int64_t n = (int64_t)T * d;
    __nv_bfloat16* in;
    int8_t *o0, *o1;
    float *s0, *s1;
    CK(cudaMalloc(&in, n * 2));
    CK(cudaMalloc(&o0, n));
    CK(cudaMalloc(&o1, n));
    CK(cudaMalloc(&s0, (size_t)T * G * 4));
    CK(cudaMalloc(&s1, (size_t)T * G * 4));
    std::vector<__nv_bfloat16> h(n);
    uint64_t x = 88172645463325252ull;
    for (int64_t k = 0; k < n; ++k) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      h[k] = __float2bfloat16(((int)(x % 20001) - 10000) / 997.0f);
    }
    CK(cudaMemcpy(in, h.data(), n * 2, cudaMemcpyHostToDevice));
    std::vector<int8_t> ref(n), got(n);
    std::vector<float> sref((size_t)T * G), sgot((size_t)T * G);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    auto median = [&](auto launch) {
      std::vector<float> ts;
      for (int r = 0; r < 41; ++r) {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        ts.push_back(ms * 1000);
      }
      std::sort(ts.begin(), ts.end());
      return ts[20];
    };
    const size_t nb = (n * 3 / 2) / 16;  // bf16 in + i8 out, half each way
    uint4 *ci, *co;
    CK(cudaMalloc(&ci, nb * 16));
    CK(cudaMalloc(&co, nb * 16));
    const float copyus = median([&] { copyk<<<sms * 16, 256>>>(co, ci, nb); });
    orig<<<dim3(G, T), 128>>>(o0, s0, in, d, gs);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(ref.data(), o0, n, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(sref.data(), s0, sref.size() * 4, cudaMemcpyDeviceToHost));
    struct V {
      const char* name;
      void (*k)(int8_t*, float*, const __nv_bfloat16*, int64_t);
      int elems, block, persistBlocksPerSM;
    } vs[] = {
        {"flat8_b128", flat<1>, 8, 128, 0},
        {"flat16_b128", flat<2>, 16, 128, 0},
        {"flat16_b256", flat<2>, 16, 256, 0},
        {"flat16_b512", flat<2>, 16, 512, 0},
        {"flat32_b128", flat<4>, 32, 128, 0},
        {"flat32_b256", flat<4>, 32, 256, 0},
        {"pers16_x8", persist<2>, 16, 256, 8},
        {"pers16_x4", persist<2>, 16, 256, 4},
        {"pers8_x8", persist<1>, 8, 256, 8},
        {"pers32_x4", persist<4>, 32, 256, 4},
    };
    const float tOrig = median([&] { orig<<<dim3(G, T), 128>>>(o1, s1, in, d, gs); });
    printf("T=%d d=%d copy of the same bytes %.2f us; orig %.2f us (%.1f%%)\n", T, d,
           copyus, tOrig, 100 * copyus / tOrig);
    for (auto& v : vs) {
      const int64_t threads = n / v.elems;
      const unsigned blocks =
          v.persistBlocksPerSM
              ? (unsigned)std::min<int64_t>((int64_t)sms * v.persistBlocksPerSM,
                                            (threads + v.block - 1) / v.block)
              : (unsigned)((threads + v.block - 1) / v.block);
      CK(cudaMemset(o1, 0x5a, n));
      CK(cudaMemset(s1, 0x5a, sref.size() * 4));
      v.k<<<blocks, v.block>>>(o1, s1, in, n);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(got.data(), o1, n, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(sgot.data(), s1, sgot.size() * 4, cudaMemcpyDeviceToHost));
      int64_t bad = 0, sbad = 0;
      for (int64_t k = 0; k < n; ++k) bad += abs(ref[k] - got[k]) > 1;
      for (size_t k = 0; k < sref.size(); ++k)
        sbad += fabsf(sref[k] - sgot[k]) > 1e-6f * fabsf(sref[k]);
      const float t = median([&] { v.k<<<blocks, v.block>>>(o1, s1, in, n); });
      printf("  %-12s %8.2f us  %5.1f%% of copy  %.3fx  bad=%lld sbad=%lld %s\n",
             v.name, t, 100 * copyus / t, tOrig / t, (long long)bad,
             (long long)sbad, cudaGetErrorString(cudaGetLastError()));
    }
    cudaFree(in); cudaFree(o0); cudaFree(o1); cudaFree(s0); cudaFree(s1);
    cudaFree(ci); cudaFree(co);
  }
  return 0;
}
