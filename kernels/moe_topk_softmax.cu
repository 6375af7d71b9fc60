// moe_topk_softmax: mixture-of-experts router gating: softmax over the expert
// logits of each token, then the top-k experts and their weights.
//
// For every token t, with E = num_experts and x = gating_output[t, :]:
//
//     p[e] = exp(x[e] - max(x)) / sum_e' exp(x[e'] - max(x))
//     ids  = the k experts with the largest logits, in decreasing order;
//            equal logits: the lower expert id first
//     topk_ids[t, j]     = ids[j]
//     topk_weights[t, j] = p[ids[j]]                          (renormalize = 0)
//                        = p[ids[j]] / sum_j' p[ids[j']]      (renormalize = 1)
//
// The experts are chosen on the logits, which orders them as the softmax
// does, so the ids depend only on exact comparisons of the input and not on
// how exp or the sum are computed.
//
// Layout (row-major, contiguous):
//     gating_output  [T, E]  f32   (router logits)
//     topk_weights   [T, k]  f32
//     topk_ids       [T, k]  int32
//
// Launch: grid = T (one block per token), block = E threads (one expert per
// thread, E <= 1024; any block size >= E works).  Shared-memory tree
// reductions: the max and the sum of the softmax, then k rounds of an arg-max
// over the experts not yet chosen.  Expert counts are not always powers of
// two (e.g. 60 in Qwen1.5-MoE), so the tree starts at the power of two at or
// above blockDim.x and skips partners past the end of the block.
//
// Shapes in moe_topk_softmax.astra.json:
//     T = 1,     E = 8,   k = 2,  renormalize = 1   Mixtral-8x7B, one decode token
//     T = 1024,  E = 64,  k = 6,  renormalize = 0   DeepSeek-V2-Lite, 1024 tokens
//     T = 16384, E = 128, k = 8,  renormalize = 1   Qwen3-30B-A3B, 16384 tokens
//     T = 65536, E = 512, k = 10, renormalize = 1   Qwen3-Next-80B-A3B, a 65536-
//                                                   token prefill step (logits
//                                                   134 MB; with fewer tokens the
//                                                   router is latency-bound)
// Tolerance: rtol 1e-5, atol 1e-6 (the f32 defaults): a different order of
// the sum changes a weight by a few f32 ulps; topk_ids are compared exactly.

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__global__ void moe_topk_softmax(float* topk_weights, int* topk_ids,
                                 const float* gating_output, int num_experts,
                                 int k, int renormalize) {
  __shared__ float s_val[1024];
  __shared__ int s_idx[1024];
  __shared__ float s_weight[1024];

  const int64_t token = blockIdx.x;
  const int e = threadIdx.x;
  const bool valid = e < num_experts;
  const float logit = valid ? gating_output[token * num_experts + e] : -INFINITY;

  // First stride of the tree reductions: half the power of two >= blockDim.x.
  int first_stride = 1;
  while (first_stride < (int)blockDim.x) first_stride <<= 1;
  first_stride >>= 1;

  // Max of the logits.
  s_val[e] = logit;
  __syncthreads();
  for (int s = first_stride; s > 0; s >>= 1) {
    if (e < s && e + s < (int)blockDim.x) s_val[e] = fmaxf(s_val[e], s_val[e + s]);
    __syncthreads();
  }
  const float max_logit = s_val[0];
  __syncthreads();

  // Sum of the exponentials.
  const float ex = valid ? expf(logit - max_logit) : 0.0f;
  s_val[e] = ex;
  __syncthreads();
  for (int s = first_stride; s > 0; s >>= 1) {
    if (e < s && e + s < (int)blockDim.x) s_val[e] += s_val[e + s];
    __syncthreads();
  }
  const float prob = ex / s_val[0];
  __syncthreads();

  // k rounds of arg-max over the experts not chosen yet.  A slot holds the
  // expert id, or -1 for "nothing to offer" (chosen already, or no expert).
  bool chosen = !valid;
  for (int j = 0; j < k; ++j) {
    s_val[e] = logit;
    s_idx[e] = chosen ? -1 : e;
    __syncthreads();
    for (int s = first_stride; s > 0; s >>= 1) {
      if (e < s && e + s < (int)blockDim.x) {
        int a = s_idx[e];
        int b = s_idx[e + s];
        float va = s_val[e];
        float vb = s_val[e + s];
        bool take_b = b >= 0 && (a < 0 || vb > va || (vb == va && b < a));
        if (take_b) {
          s_idx[e] = b;
          s_val[e] = vb;
        }
      }
      __syncthreads();
    }
    const int best = s_idx[0];
    __syncthreads();
    if (e == best) {
      chosen = true;
      s_weight[j] = prob;
      topk_ids[token * k + j] = e;
    }
    __syncthreads();
  }

  if (e < k) {
    float w = s_weight[e];
    if (renormalize) {
      float sum = 0.0f;
      for (int j = 0; j < k; ++j) sum += s_weight[j];
      w = w / sum;
    }
    topk_weights[token * k + e] = w;
  }
}
