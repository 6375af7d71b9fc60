// merge_attn_states: merge two partial attention results computed over
// disjoint key ranges (e.g. a shared prefix and the rest of a sequence, as in
// cascade / chunked-prefill attention), using their log-sum-exp values.
//
// For token t, head h and element i < head_size, with p = prefix, s = suffix:
//
//     m      = max(lse_p[h, t], lse_s[h, t])
//     w_p    = exp(lse_p - m),  w_s = exp(lse_s - m)
//     out[t, h, i] = (o_p[t, h, i] * w_p + o_s[t, h, i] * w_s) / (w_p + w_s)
//     output_lse[h, t] = m + log(w_p + w_s)
//
// An lse of +inf (what FlashAttention reports for an empty key range) is
// treated as -inf, i.e. that part has no weight.  If both parts are empty the
// output is 0 and its lse is -inf.  Math in f32; outputs rounded to T_ once.
//
// Layout:
//     output, prefix_output, suffix_output  [T, H, head_size]  element type T_
//     output_lse, prefix_lse, suffix_lse    [H, T]             f32
//
// Launch: grid = (T, H): one block per (token, head), block = head_size
// threads, one element per thread.  Every thread computes the two weights
// itself (the lse loads hit the same addresses); thread 0 writes output_lse.
//
// Instantiations: merge_attn_states<__half> and <__nv_bfloat16>; the spec
// runs the f16 one.
//
// Shapes in merge_attn_states.astra.json (head_size = 128):
//     T = 1,     H = 32   LLaMA-7B, one decode token
//     T = 512,   H = 40   LLaMA-13B, 512 tokens
//     T = 16384, H = 64   LLaMA-70B query heads, 16384 prefill tokens
//                         (three [T, H, 128] f16 tensors of 268 MB each)
// Tolerance: rtol 1e-3, atol 1e-5 (one f16 ulp <= 2^-10 relative); the f32
// output_lse is a sum of a max and a log of a value in [1, 2], so rtol 1e-3 is
// loose for it, but one tolerance covers all outputs of a kernel.

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <math.h>
#include <stdint.h>

template <typename T_>
__global__ void merge_attn_states(T_* output, float* output_lse,
                                  const T_* prefix_output,
                                  const float* prefix_lse,
                                  const T_* suffix_output,
                                  const float* suffix_lse, int num_tokens,
                                  int num_heads, int head_size) {
  const int token = blockIdx.x;
  const int head = blockIdx.y;
  const int i = threadIdx.x;

  float p_lse = prefix_lse[(int64_t)head * num_tokens + token];
  float s_lse = suffix_lse[(int64_t)head * num_tokens + token];
  if (isinf(p_lse)) p_lse = -INFINITY;
  if (isinf(s_lse)) s_lse = -INFINITY;

  const float max_lse = fmaxf(p_lse, s_lse);
  float p_scale = 0.0f;
  float s_scale = 0.0f;
  float out_lse = -INFINITY;
  if (max_lse != -INFINITY) {
    float p_se = expf(p_lse - max_lse);
    float s_se = expf(s_lse - max_lse);
    float sum_se = p_se + s_se;
    p_scale = p_se / sum_se;
    s_scale = s_se / sum_se;
    out_lse = logf(sum_se) + max_lse;
  }

  if (i < head_size) {
    int64_t offset = ((int64_t)token * num_heads + head) * head_size + i;
    float p = static_cast<float>(prefix_output[offset]);
    float s = static_cast<float>(suffix_output[offset]);
    output[offset] = static_cast<T_>(p * p_scale + s * s_scale);
  }

  if (i == 0) {
    output_lse[(int64_t)head * num_tokens + token] = out_lse;
  }
}

template __global__ void merge_attn_states<__half>(__half*, float*,
                                                   const __half*, const float*,
                                                   const __half*, const float*,
                                                   int, int, int);
template __global__ void merge_attn_states<__nv_bfloat16>(
    __nv_bfloat16*, float*, const __nv_bfloat16*, const float*,
    const __nv_bfloat16*, const float*, int, int, int);
