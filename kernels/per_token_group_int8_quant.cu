// per_token_group_int8_quant: dynamic per-token-group symmetric INT8
// quantization of activations, as in block-wise W8A8 INT8 serving (SGLang's
// per_token_group_quant_int8, group size 128).
//
// Each row of d values is split into groups of group_size consecutive
// columns, g = 0 .. G-1 with G = ceil(d / group_size); for token t, group g:
//
//     absmax       = max over the group of |x[t, i]|
//     scales[t, g] = max(absmax, 1e-10) / 127
//     out[t, i]    = clamp(rint(x[t, i] / scales[t, g]), -128, 127)
//
// (rint: round half to even).  The 1e-10 floor keeps an all-zero group from
// dividing by zero.  A last, partial group (d not a multiple of group_size) is
// quantized on its own.
//
// Layout (row-major, contiguous):
//     input   [T, d]   bf16
//     out     [T, d]   int8
//     scales  [T, G]   f32
//
// Launch: grid = (G, T): one block per (group, token); block = group_size
// threads, one element per thread, T <= 65535.  The group's absolute maximum
// is reduced with a shared-memory tree, so group_size must be a power of two
// <= 1024 (128 here).
//
// Shapes in per_token_group_int8_quant.astra.json (group_size = 128):
//     T = 1,     d = 4096    LLaMA-7B hidden, one decode token
//     T = 512,   d = 13824   LLaMA-13B intermediate, 512 tokens (108 groups)
//     T = 16384, d = 8192    LLaMA-70B hidden, 16384 prefill tokens
//                            (input 268 MB, output 134 MB, scales 4 MB)
// Tolerances, one per output (the spec's per-argument "tolerance"):
//   out:    atol 1 (one quantization step).  The group scale is exact, but
//           x / scale may be computed differently by a rewrite
//           (x * (1/scale), a fast division); a 1-ulp change in f32 can move
//           a value across a .5 rounding boundary, so a quantized value may
//           differ by one step.  Integer outputs are bit-equal unless their
//           spec entry gives an atol, as this one does.
//   scales: rtol 1e-6, atol 0.  max(absmax, 1e-10) / 127 in f32; a rewrite
//           that multiplies by 1/127 differs by about 1 ulp (1.2e-7); a
//           changed max or a lower precision is refused.  The scale is never
//           below 1e-10 / 127, so a relative bound alone suffices.

#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>

__global__ void per_token_group_int8_quant(int8_t* out, float* scales,
                                           const __nv_bfloat16* input, int d,
                                           int group_size) {
  __shared__ float partial[1024];
  const float kInt8Max = 127.0f;
  const float kEps = 1e-10f;

  const int group = blockIdx.x;
  const int64_t token = blockIdx.y;
  const int num_groups = (d + group_size - 1) / group_size;
  const int i = group * group_size + threadIdx.x;
  const bool active = i < d;

  float v = 0.0f;
  if (active) {
    v = __bfloat162float(input[token * d + i]);
  }

  partial[threadIdx.x] = fabsf(v);
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x],
                                   partial[threadIdx.x + s]);
    }
    __syncthreads();
  }

  const float group_scale = fmaxf(partial[0], kEps) / kInt8Max;
  if (threadIdx.x == 0) {
    scales[token * num_groups + group] = group_scale;
  }

  if (active) {
    float q = rintf(v / group_scale);
    q = fminf(fmaxf(q, -128.0f), 127.0f);
    out[token * d + i] = static_cast<int8_t>(q);
  }
}
