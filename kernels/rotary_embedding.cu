// rotary_embedding_neox: rotary position embedding (RoPE), GPT-NeoX style
// (rotate halves), applied in place to the queries and keys of each token,
// with a precomputed cos/sin cache, as in LLaMA attention.
//
// For token t at position p = positions[t], every query head h < num_heads
// and every key head h < num_kv_heads, with half = rot_dim / 2 and j < half:
//
//     c = cache[p, j],  s = cache[p, half + j]        (cos first, then sin)
//     a = v[j],         b = v[half + j]               (v = that head's vector)
//     v[j]        <- a * c - b * s
//     v[half + j] <- b * c + a * s
//
// Columns j >= rot_dim of a head are left unchanged (rot_dim = head_size for
// LLaMA).  Math in f32, one rounding to the element type.
//
// Layout:
//     positions     [T]                    int64, in [0, max_position)
//     query         [T, query_stride]      head h at columns h*head_size ..
//     key           [T, key_stride]        head h at columns h*head_size ..
//     cos_sin_cache [max_position, rot_dim]  cos in [0, half), sin after
//     query, key and cache of element type T_ (f16 or bf16)
// query_stride / key_stride >= heads * head_size: query and key may be views
// into the fused qkv projection output, whose rows hold (H + 2*KH) heads.
//
// Launch: grid = T (one block per token), block = min(H * rot_dim/2, 512);
// the block strides over the (head, j) pairs of the queries, then of the keys.
//
// Instantiations: rotary_embedding_neox<__half> and <__nv_bfloat16>; the spec
// runs the bf16 one.
//
// Shapes in rotary_embedding.astra.json (head_size = rot_dim = 128):
//     T = 1,     H = 32, KH = 32, P = 4096   LLaMA-7B, one decode token,
//                                            contiguous q and k
//     T = 512,   H = 40, KH = 40, P = 4096   LLaMA-13B, 512 tokens, q and k as
//                                            views of the [T, 120*128] qkv
//                                            output (strides 15360)
//     T = 16384, H = 64, KH = 8,  P = 8192   LLaMA-70B (grouped-query, 8 KV
//                                            heads), 16384 prefill tokens
//                                            (query 268 MB + key 34 MB, both
//                                            read and written)
// P = max_position (LLaMA-2: 4096, LLaMA-3 class 70B: 8192); cache values are
// uniform in [-1, 1).
// Tolerance: rtol 8e-3, atol 1e-5, the bf16 defaults: f32 results that differ
// by an ulp (e.g. a*c - b*s contracted to an fma or not) round to bf16 values
// at most one bf16 ulp (<= 2^-7 relative) apart.
// Bytes (the spec's "bytes": the fewest bytes the kernel must move, from
// which the harness computes its physical floor and achieved GB/s): the
// H + KH heads of each token, read and written (2 * 2 bytes per element; the
// rest of a strided row is not touched: on the T = 512 shape q and k hold
// three times as many columns as the kernel uses) + positions T*8 + the
// cache rows of the distinct positions, rot_dim*2 bytes each.  With T
// positions uniform in [0, P) the expected number of distinct rows is
// P*(1 - (1 - 1/P)^T) (7,083 at the largest shape); the spec counts T*P/(P+T)
// (5,461), a lower bound on that expectation (1 - (1-1/P)^T >= 1 - e^(-T/P)
// >= (T/P) / (1 + T/P)).  At the largest shape: 605.5 MB counted, about
// 605.9 MB really moved, 606.2 MB for every buffer whole; at T = 512, 21.1 MB
// counted against 64.0 MB for every buffer whole.

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

template <typename T_>
__device__ void rotate_pair(T_* head, int j, int half, float c, float s) {
  float a = static_cast<float>(head[j]);
  float b = static_cast<float>(head[half + j]);
  head[j] = static_cast<T_>(a * c - b * s);
  head[half + j] = static_cast<T_>(b * c + a * s);
}

template <typename T_>
__global__ void rotary_embedding_neox(const int64_t* positions, T_* query,
                                      T_* key, const T_* cos_sin_cache,
                                      int rot_dim, int query_stride,
                                      int key_stride, int num_heads,
                                      int num_kv_heads, int head_size) {
  const int64_t token = blockIdx.x;
  const int64_t pos = positions[token];
  const int half = rot_dim / 2;
  const T_* cos_row = cos_sin_cache + pos * rot_dim;
  const T_* sin_row = cos_row + half;

  const int num_q = num_heads * half;
  for (int i = threadIdx.x; i < num_q; i += blockDim.x) {
    int h = i / half;
    int j = i % half;
    T_* head = query + token * query_stride + h * head_size;
    float c = static_cast<float>(cos_row[j]);
    float s = static_cast<float>(sin_row[j]);
    rotate_pair(head, j, half, c, s);
  }

  const int num_k = num_kv_heads * half;
  for (int i = threadIdx.x; i < num_k; i += blockDim.x) {
    int h = i / half;
    int j = i % half;
    T_* head = key + token * key_stride + h * head_size;
    float c = static_cast<float>(cos_row[j]);
    float s = static_cast<float>(sin_row[j]);
    rotate_pair(head, j, half, c, s);
  }
}

template __global__ void rotary_embedding_neox<__half>(const int64_t*, __half*,
                                                       __half*, const __half*,
                                                       int, int, int, int, int,
                                                       int);
template __global__ void rotary_embedding_neox<__nv_bfloat16>(
    const int64_t*, __nv_bfloat16*, __nv_bfloat16*, const __nv_bfloat16*, int,
    int, int, int, int, int);
