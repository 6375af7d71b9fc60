// fused_add_rmsnorm: residual add followed by RMSNorm, in place, as between
// two LLaMA decoder sub-layers.
//
// Computes, for every token t (x = input, r = residual, both updated in place):
//
//     r[t, i] <- x[t, i] + r[t, i]                        (rounded to T_)
//     inv_rms  = 1 / sqrt( (1/d) * sum_i r[t, i]^2 + epsilon )
//     x[t, i] <- r[t, i] * inv_rms * weight[i]             (rounded to T_)
//
// The norm is taken over the rounded new residual (the values actually
// stored), so the output does not depend on how the sum is computed beyond
// f32 reassociation.
//
// Layout (row-major, contiguous):
//     input     [T, d]   in/out: the sub-layer output in, the normed row out
//     residual  [T, d]   in/out: the residual stream in, the updated stream out
//     weight    [d]
//     all of element type T_ (f16 or bf16)
//
// Launch: grid = T (one block per token), block = 1024 threads striding over
// the row; the sum of squares is reduced with a shared-memory tree, which
// needs blockDim.x to be a power of two <= 1024.  The second pass re-reads
// the residual row this block wrote in the first pass (each thread reads back
// only elements it wrote itself).
//
// Instantiations: fused_add_rmsnorm<__half> and <__nv_bfloat16>; the spec
// runs the bf16 one.  epsilon = 1e-5 (LLaMA-2).
//
// Shapes in fused_add_rmsnorm.astra.json (d = hidden size):
//     T = 1,     d = 4096   LLaMA-7B, one decode token
//     T = 512,   d = 5120   LLaMA-13B, a decode batch of 512 sequences
//     T = 16384, d = 8192   LLaMA-70B, 16384 prefill tokens
//                           (input and residual 268 MB each, both read and
//                           written: 1.07 GB of traffic)
// Tolerance: rtol 8e-3, the bf16 default (one bf16 ulp <= 2^-7 relative);
// the residual output is an exact function of the inputs and will match
// bit for bit unless the addition itself is changed.

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

template <typename T_>
__global__ void fused_add_rmsnorm(T_* input, T_* residual, const T_* weight,
                                  float epsilon, int d) {
  __shared__ float partial[1024];

  const int64_t token = blockIdx.x;
  T_* x = input + token * d;
  T_* r = residual + token * d;

  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float sum = static_cast<float>(x[i]) + static_cast<float>(r[i]);
    T_ stored = static_cast<T_>(sum);
    r[i] = stored;
    float v = static_cast<float>(stored);
    sum_sq += v * v;
  }

  partial[threadIdx.x] = sum_sq;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      partial[threadIdx.x] += partial[threadIdx.x + s];
    }
    __syncthreads();
  }

  const float variance = partial[0] / d;
  const float inv_rms = 1.0f / sqrtf(variance + epsilon);

  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = static_cast<float>(r[i]);
    float w = static_cast<float>(weight[i]);
    x[i] = static_cast<T_>(v * inv_rms * w);
  }
}

template __global__ void fused_add_rmsnorm<__half>(__half*, __half*,
                                                   const __half*, float, int);
template __global__ void fused_add_rmsnorm<__nv_bfloat16>(
    __nv_bfloat16*, __nv_bfloat16*, const __nv_bfloat16*, float, int);
