// moe_sum_reduce: combine the outputs of a token's top-k experts (the final
// step of a fused-MoE layer when the router weights were already applied to
// the expert outputs), as SGLang's moe_sum_reduce.
//
// For every token t and every column h < hidden:
//
//     out[t, h] = routed_scaling_factor * sum_{j < topk} x[t, j, h]
//
// summed in f32 in the order j = 0, 1, ..., one rounding to the element type.
//
// Layout (row-major, contiguous):
//     input  [T, topk, hidden]   element type T_ (f16 or bf16)
//     out    [T, hidden]         element type T_
//
// Launch: a grid-stride loop over the T * hidden output elements (flattened,
// 64-bit index), so any grid works; the spec uses
// min(ceil_div(T*hidden, 256), 8192) blocks of 256 threads.
//
// Instantiations: moe_sum_reduce<__half> and <__nv_bfloat16>; the spec runs
// the bf16 one.  routed_scaling_factor = 2.5 (DeepSeek-V3's value; it only
// scales the sum, so it is used for every shape).
//
// Shapes in moe_sum_reduce.astra.json:
//     T = 1,    topk = 8, hidden = 7168   DeepSeek-V3, one decode token
//     T = 256,  topk = 8, hidden = 7168   DeepSeek-V3, a 256-token decode batch
//     T = 1024, topk = 2, hidden = 4096   Mixtral-8x7B, 1024 tokens
//     T = 8192, topk = 8, hidden = 7168   DeepSeek-V3, an 8192-token prefill
//                                         chunk (input 940 MB, output 117 MB)
// Tolerance: rtol 8e-3, atol 1e-5, the bf16 defaults (one bf16 ulp <= 2^-7
// relative; the f32 sum itself is done in a fixed order).

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

template <typename T_>
__global__ void moe_sum_reduce(T_* out, const T_* input, int num_tokens,
                               int topk, int hidden,
                               float routed_scaling_factor) {
  const int64_t n = (int64_t)num_tokens * hidden;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n;
       idx += stride) {
    int64_t token = idx / hidden;
    int64_t h = idx % hidden;
    const T_* x = input + token * topk * hidden + h;
    float sum = 0.0f;
    for (int j = 0; j < topk; ++j) {
      sum += static_cast<float>(x[(int64_t)j * hidden]);
    }
    out[idx] = static_cast<T_>(sum * routed_scaling_factor);
  }
}

template __global__ void moe_sum_reduce<__half>(__half*, const __half*, int,
                                                int, int, float);
template __global__ void moe_sum_reduce<__nv_bfloat16>(__nv_bfloat16*,
                                                       const __nv_bfloat16*,
                                                       int, int, int, float);
