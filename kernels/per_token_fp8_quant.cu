// per_token_fp8_quant: dynamic per-token FP8 (e4m3) quantization of
// activations, as in FP8 W8A8 serving (vLLM's dynamic_per_token_scaled_fp8_quant
// without the optional scale upper bound).
//
// For every token t, with FP8_MAX = 448 (largest finite e4m3 value):
//
//     absmax   = max_i |x[t, i]|
//     scale[t] = max(absmax / FP8_MAX, 1 / (FP8_MAX * 512))
//     out[t, i] = fp8_e4m3( clamp(x[t, i] / scale[t], -FP8_MAX, FP8_MAX) )
//
// (round to nearest even, saturating), so that x ~= out * scale.  The lower
// bound on the scale keeps an all-zero row from dividing by zero.
//
// Layout (row-major, contiguous):
//     input  [T, d]   element type T_ (f16 or bf16)
//     out    [T, d]   fp8 e4m3
//     scale  [T]      f32
//
// Launch: grid = T (one block per token), block = 1024 threads striding over
// the row; the absolute maximum is reduced with a shared-memory tree
// (blockDim.x a power of two <= 1024); thread 0 writes the scale.
//
// Instantiations: per_token_fp8_quant<__half> and <__nv_bfloat16>; the spec
// runs the bf16 one.
//
// Shapes in per_token_fp8_quant.astra.json:
//     T = 1,     d = 4096    LLaMA-7B hidden, one decode token (qkv input)
//     T = 128,   d = 11008   LLaMA-7B intermediate (down_proj input), 128 tokens
//     T = 2048,  d = 28672   LLaMA-70B intermediate, a 2048-token chunk
//     T = 16384, d = 8192    LLaMA-70B hidden, 16384 prefill tokens
//                            (input 268 MB, output 134 MB)
// Tolerances, one per output (the spec's per-argument "tolerance"):
//   out:   rtol 0.125, atol 2^-9.  The absmax is exact (a max does not depend
//          on the order), but x / scale may be computed differently by a
//          rewrite (x * (1/scale), a fast division); a 1-ulp change in f32
//          can move a value across an fp8 rounding boundary, so an output may
//          differ by one fp8 step: at most 2^-3 of its magnitude (3 mantissa
//          bits), or 2^-9 (the subnormal step) near zero.
//   scale: rtol 1e-6, atol 0.  absmax / 448 in f32; a rewrite that
//          multiplies by 1/448 instead differs by about 1 ulp (1.2e-7); a
//          changed max or a lower precision is refused.  The scale is never
//          below 1/(448*512), so a relative bound alone suffices.

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <stdint.h>

template <typename T_>
__global__ void per_token_fp8_quant(__nv_fp8_e4m3* out, float* scale,
                                    const T_* input, int d) {
  __shared__ float partial[1024];
  const float kFp8Max = 448.0f;
  const float kMinScale = 1.0f / (448.0f * 512.0f);

  const int64_t token = blockIdx.x;
  const T_* x = input + token * d;
  __nv_fp8_e4m3* q = out + token * d;

  float absmax = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    absmax = fmaxf(absmax, fabsf(static_cast<float>(x[i])));
  }

  partial[threadIdx.x] = absmax;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x],
                                   partial[threadIdx.x + s]);
    }
    __syncthreads();
  }

  const float row_scale = fmaxf(partial[0] / kFp8Max, kMinScale);
  if (threadIdx.x == 0) {
    scale[token] = row_scale;
  }

  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = static_cast<float>(x[i]) / row_scale;
    v = fminf(fmaxf(v, -kFp8Max), kFp8Max);
    q[i] = __nv_fp8_e4m3(v);
  }
}

template __global__ void per_token_fp8_quant<__half>(__nv_fp8_e4m3*, float*,
                                                     const __half*, int);
template __global__ void per_token_fp8_quant<__nv_bfloat16>(
    __nv_fp8_e4m3*, float*, const __nv_bfloat16*, int);
