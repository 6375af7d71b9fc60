// Hand-written variants of per_token_group_int8_quant, for measuring what a
// rewrite could reach (docs/benchmarks.md section 5, "Coarsened block
// reductions, exact folds"): the original; 8 elements per thread (16-thread
// blocks, a shared tree or shuffles); 2-8 groups folded per block; both.
// Checks each against the original (|diff| <= 1) and prints cudaEvent medians
// of 50 launches and the copy of the same bytes. Not part of the build:
//   nvcc -O3 -arch=sm_90 -o variants group-int8-variants.cu && ./variants
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <stdio.h>
#include <vector>
#include <algorithm>
__global__ void orig(int8_t* out, float* scales, const __nv_bfloat16* input, int d, int group_size) {
  __shared__ float partial[1024];
  const int group = blockIdx.x; const int64_t token = blockIdx.y;
  const int num_groups = (d + group_size - 1) / group_size;
  const int i = group * group_size + threadIdx.x; const bool active = i < d;
  float v = 0.0f; if (active) v = __bfloat162float(input[token * d + i]);
  partial[threadIdx.x] = fabsf(v); __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]); __syncthreads(); }
  const float gs = fmaxf(partial[0], 1e-10f) / 127.0f;
  if (threadIdx.x == 0) scales[token * num_groups + group] = gs;
  if (active) { float q = rintf(v / gs); q = fminf(fmaxf(q, -128.0f), 127.0f); out[token * d + i] = (int8_t)q; }
}
// D: coarsened 8 per thread, pack load when aligned & full, shared tree over blockDim (16)
template <int C>
__global__ void coarse_tree(int8_t* out, float* scales, const __nv_bfloat16* input, int d, int group_size) {
  __shared__ float partial[1024];
  const int group = blockIdx.x; const int64_t token = blockIdx.y;
  const int num_groups = (d + group_size - 1) / group_size;
  float v[C]; 
  const int i0 = group * group_size + threadIdx.x * C;
  const __nv_bfloat16* p = input + token * d + i0;
  if (i0 + C <= d && ((uintptr_t)p % (2*C)) == 0) {
    union { uint4 u; __nv_bfloat16 h[8]; } pk; pk.u = *(const uint4*)p;
#pragma unroll
    for (int c = 0; c < C; ++c) v[c] = __bfloat162float(pk.h[c]);
  } else {
#pragma unroll
    for (int c = 0; c < C; ++c) v[c] = (i0 + c < d) ? __bfloat162float(p[c]) : 0.0f;
  }
  float m = fabsf(v[0]);
#pragma unroll
  for (int c = 1; c < C; ++c) m = fmaxf(m, fabsf(v[c]));
  partial[threadIdx.x] = m; __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]); __syncthreads(); }
  const float gs = fmaxf(partial[0], 1e-10f) / 127.0f;
  if (threadIdx.x == 0) scales[token * num_groups + group] = gs;
  int8_t* o = out + token * d + i0;
  if (i0 + C <= d && ((uintptr_t)o % C) == 0) {
    union { uint2 u; int8_t b[8]; } pk;
#pragma unroll
    for (int c = 0; c < C; ++c) { float q = rintf(v[c] / gs); q = fminf(fmaxf(q, -128.0f), 127.0f); pk.b[c] = (int8_t)q; }
    *(uint2*)o = pk.u;
  } else {
    for (int c = 0; c < C; ++c) if (i0 + c < d) { float q = rintf(v[c] / gs); q = fminf(fmaxf(q, -128.0f), 127.0f); o[c] = (int8_t)q; }
  }
}
// B/C: coarsened 8 per thread, shuffle-only reduction over 16 lanes; block (16, K): K groups per block along x
template <int K>
__global__ void coarse_shfl(int8_t* out, float* scales, const __nv_bfloat16* input, int d, int group_size) {
  const int num_groups = (d + group_size - 1) / group_size;
  const int group = blockIdx.x * K + threadIdx.y; const int64_t token = blockIdx.y;
  if (group >= num_groups) return;
  float v[8];
  const int i0 = group * group_size + threadIdx.x * 8;
  const __nv_bfloat16* p = input + token * d + i0;
  if (i0 + 8 <= d) {
    union { uint4 u; __nv_bfloat16 h[8]; } pk; pk.u = *(const uint4*)p;
#pragma unroll
    for (int c = 0; c < 8; ++c) v[c] = __bfloat162float(pk.h[c]);
  } else {
    for (int c = 0; c < 8; ++c) v[c] = (i0 + c < d) ? __bfloat162float(p[c]) : 0.0f;
  }
  float m = fabsf(v[0]);
#pragma unroll
  for (int c = 1; c < 8; ++c) m = fmaxf(m, fabsf(v[c]));
  for (int off = 8; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off, 16));
  const float gs = fmaxf(m, 1e-10f) / 127.0f;
  if (threadIdx.x == 0) scales[token * num_groups + group] = gs;
  int8_t* o = out + token * d + i0;
  union { uint2 u; int8_t b[8]; } pk;
#pragma unroll
  for (int c = 0; c < 8; ++c) { float q = rintf(v[c] / gs); q = fminf(fmaxf(q, -128.0f), 127.0f); pk.b[c] = (int8_t)q; }
  if (i0 + 8 <= d) *(uint2*)o = pk.u; else for (int c = 0; c < 8; ++c) if (i0 + c < d) o[c] = pk.b[c];
}
// E: coarsened tree over 16 threads, blocks (16,K) with per-row shared slices
template <int K>
__global__ void coarse_fold_tree(int8_t* out, float* scales, const __nv_bfloat16* input, int d, int group_size) {
  __shared__ float partial[K][16];
  const int num_groups = (d + group_size - 1) / group_size;
  const int group = blockIdx.x * K + threadIdx.y; const int64_t token = blockIdx.y;
  const bool row = group < num_groups;
  float v[8];
  const int i0 = group * group_size + threadIdx.x * 8;
  const __nv_bfloat16* p = input + token * d + i0;
  if (row && i0 + 8 <= d) {
    union { uint4 u; __nv_bfloat16 h[8]; } pk; pk.u = *(const uint4*)p;
#pragma unroll
    for (int c = 0; c < 8; ++c) v[c] = __bfloat162float(pk.h[c]);
  } else {
    for (int c = 0; c < 8; ++c) v[c] = (row && i0 + c < d) ? __bfloat162float(p[c]) : 0.0f;
  }
  float m = fabsf(v[0]);
#pragma unroll
  for (int c = 1; c < 8; ++c) m = fmaxf(m, fabsf(v[c]));
  partial[threadIdx.y][threadIdx.x] = m; __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (threadIdx.x < s) partial[threadIdx.y][threadIdx.x] = fmaxf(partial[threadIdx.y][threadIdx.x], partial[threadIdx.y][threadIdx.x + s]); __syncthreads(); }
  const float gs = fmaxf(partial[threadIdx.y][0], 1e-10f) / 127.0f;
  if (!row) return;
  if (threadIdx.x == 0) scales[token * num_groups + group] = gs;
  int8_t* o = out + token * d + i0;
  union { uint2 u; int8_t b[8]; } pk;
#pragma unroll
  for (int c = 0; c < 8; ++c) { float q = rintf(v[c] / gs); q = fminf(fmaxf(q, -128.0f), 127.0f); pk.b[c] = (int8_t)q; }
  if (i0 + 8 <= d) *(uint2*)o = pk.u; else for (int c = 0; c < 8; ++c) if (i0 + c < d) o[c] = pk.b[c];
}

// F: fold only over y (tokens), per-row slices of the shared array
__global__ void fold_y(int8_t* out, float* scales, const __nv_bfloat16* input, int d, int group_size) {
  __shared__ float partial[1024];
  const int group = blockIdx.x; const int64_t token = blockIdx.y * blockDim.y + threadIdx.y;
  const int num_groups = (d + group_size - 1) / group_size;
  const int i = group * group_size + threadIdx.x; const bool active = i < d;
  float* row = partial + threadIdx.y * blockDim.x;
  float v = 0.0f; if (active) v = __bfloat162float(input[token * d + i]);
  row[threadIdx.x] = fabsf(v); __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (threadIdx.x < s) row[threadIdx.x] = fmaxf(row[threadIdx.x], row[threadIdx.x + s]); __syncthreads(); }
  const float gs = fmaxf(row[0], 1e-10f) / 127.0f;
  if (threadIdx.x == 0) scales[token * num_groups + group] = gs;
  if (active) { float q = rintf(v / gs); q = fminf(fmaxf(q, -128.0f), 127.0f); out[token * d + i] = (int8_t)q; }
}
// G: coarsen 8 + fold y, per-row slices
__global__ void coarse_fold_y(int8_t* out, float* scales, const __nv_bfloat16* input, int d, int group_size) {
  __shared__ float partial[1024];
  const int group = blockIdx.x; const int64_t token = blockIdx.y * blockDim.y + threadIdx.y;
  const int num_groups = (d + group_size - 1) / group_size;
  float* row = partial + threadIdx.y * blockDim.x;
  float v[8];
  const int i0 = group * group_size + threadIdx.x * 8;
  const __nv_bfloat16* p = input + token * d + i0;
  if (i0 + 8 <= d && ((uintptr_t)p % 16) == 0) {
    union { uint4 u; __nv_bfloat16 h[8]; } pk; pk.u = *(const uint4*)p;
#pragma unroll
    for (int c = 0; c < 8; ++c) v[c] = __bfloat162float(pk.h[c]);
  } else {
    for (int c = 0; c < 8; ++c) v[c] = (i0 + c < d) ? __bfloat162float(p[c]) : 0.0f;
  }
  float m = fabsf(v[0]);
#pragma unroll
  for (int c = 1; c < 8; ++c) m = fmaxf(m, fabsf(v[c]));
  row[threadIdx.x] = m; __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (threadIdx.x < s) row[threadIdx.x] = fmaxf(row[threadIdx.x], row[threadIdx.x + s]); __syncthreads(); }
  const float gs = fmaxf(row[0], 1e-10f) / 127.0f;
  if (threadIdx.x == 0) scales[token * num_groups + group] = gs;
  int8_t* o = out + token * d + i0;
  union { uint2 u; int8_t b[8]; } pk;
#pragma unroll
  for (int c = 0; c < 8; ++c) { float q = rintf(v[c] / gs); q = fminf(fmaxf(q, -128.0f), 127.0f); pk.b[c] = (int8_t)q; }
  if (i0 + 8 <= d && ((uintptr_t)o % 8) == 0) *(uint2*)o = pk.u; else for (int c = 0; c < 8; ++c) if (i0 + c < d) o[c] = pk.b[c];
}
__global__ void copyk(uint4* o, const uint4* i, size_t n) { for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) o[k] = i[k]; }
typedef void (*KFn)(int8_t*, float*, const __nv_bfloat16*, int, int);
int main() {
  int shapes[3][2] = {{1, 4096}, {512, 13824}, {16384, 8192}};
  const int gs = 128;
  for (auto& sh : shapes) {
    int T = sh[0], d = sh[1], G = (d + gs - 1) / gs;
    size_t n = (size_t)T * d;
    __nv_bfloat16* in; int8_t *o0, *o1; float *s0, *s1;
    cudaMalloc(&in, n * 2); cudaMalloc(&o0, n); cudaMalloc(&o1, n); cudaMalloc(&s0, T * G * 4); cudaMalloc(&s1, T * G * 4);
    std::vector<__nv_bfloat16> h(n); for (size_t k = 0; k < n; ++k) h[k] = __float2bfloat16((float)((k * 2654435761u) % 2001) / 100.f - 10.f);
    cudaMemcpy(in, h.data(), n * 2, cudaMemcpyHostToDevice);
    struct V { const char* name; KFn f; dim3 g, b; } vs[] = {
      {"orig", orig, dim3(G, T), dim3(128)},
      {"foldy2", fold_y, dim3(G, T / 2), dim3(128, 2)},
      {"foldy4", fold_y, dim3(G, T / 4), dim3(128, 4)},
      {"foldy8", fold_y, dim3(G, T / 8), dim3(128, 8)},
      {"cfoldy8", coarse_fold_y, dim3(G, T / 8), dim3(16, 8)},
      {"cfoldy16", coarse_fold_y, dim3(G, T / 16), dim3(16, 16)},
      {"cfoldy32", coarse_fold_y, dim3(G, T / 32), dim3(16, 32)},
      {"tree16", coarse_tree<8>, dim3(G, T), dim3(16)},
      {"tree32c4", coarse_tree<4>, dim3(G, T), dim3(32)},
      {"shfl_K1", coarse_shfl<1>, dim3(G, T), dim3(16, 1)},
      {"shfl_K8", coarse_shfl<8>, dim3((G + 7) / 8, T), dim3(16, 8)},
      {"shfl_K16", coarse_shfl<16>, dim3((G + 15) / 16, T), dim3(16, 16)},
      {"ftree_K8", coarse_fold_tree<8>, dim3((G + 7) / 8, T), dim3(16, 8)},
      {"ftree_K16", coarse_fold_tree<16>, dim3((G + 15) / 16, T), dim3(16, 16)},
    };
    std::vector<int8_t> ref(n), got(n);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    float copyus = 0;
    { // copy bw
      size_t nb = n * 3 / 2 / 16; uint4 *ci, *co; cudaMalloc(&ci, nb * 16); cudaMalloc(&co, nb * 16);
      std::vector<float> ts;
      for (int r = 0; r < 30; ++r) { cudaEventRecord(a); copyk<<<132 * 16, 256>>>(co, ci, nb); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms * 1000); }
      std::sort(ts.begin(), ts.end()); copyus = ts[15]; cudaFree(ci); cudaFree(co);
    }
    for (auto& v : vs) {
      cudaMemset(o1, 0, n);
      v.f<<<v.g, v.b>>>(&v == vs ? o0 : o1, &v == vs ? s0 : s1, in, d, gs);
      cudaDeviceSynchronize();
      if (&v == vs) cudaMemcpy(ref.data(), o0, n, cudaMemcpyDeviceToHost);
      else { cudaMemcpy(got.data(), o1, n, cudaMemcpyDeviceToHost); size_t bad = 0; for (size_t k = 0; k < n; ++k) if (abs(ref[k] - got[k]) > 1) ++bad; if (bad) printf("  %s: %zu bad\n", v.name, bad); }
      std::vector<float> ts;
      for (int r = 0; r < 50; ++r) { cudaEventRecord(a); v.f<<<v.g, v.b>>>(o1, s1, in, d, gs); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms * 1000); }
      std::sort(ts.begin(), ts.end());
      printf("T=%d d=%d %-10s median %8.2f us  (copy of same bytes %7.2f us: %5.1f%%)  err=%s\n", T, d, v.name, ts[25], copyus, 100 * copyus / ts[25], cudaGetErrorString(cudaGetLastError()));
    }
    cudaFree(in); cudaFree(o0); cudaFree(o1); cudaFree(s0); cudaFree(s1);
  }
}
