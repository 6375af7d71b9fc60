// rmsnorm: LLaMA's RMSNorm over the hidden dimension, one token per block.
//
// Computes, for every token t:
//
//     inv_rms   = 1 / sqrt( (1/d) * sum_i x[t, i]^2 + epsilon )
//     out[t, i] = x[t, i] * inv_rms * weight[i]          for i < d
//
// with x[t, i] = input[t * input_stride + i].  Sums and products in f32; one
// rounding of the result to the element type.
//
// Layout:
//     input   [T, input_stride], the first d columns of each row are used
//             (input_stride >= d: the input may be a column slice of a wider
//             tensor, as vLLM's rms_norm accepts non-contiguous input)
//     weight  [d]
//     out     [T, d] contiguous
//     all of element type T_ (f16 or bf16)
//
// Launch: grid = T (one block per token), block = 1024 threads.  The block
// strides over the row; the sum of squares is reduced with a shared-memory
// tree, which needs blockDim.x to be a power of two <= 1024.
//
// Instantiations: rmsnorm<__half> and rmsnorm<__nv_bfloat16>; the spec runs
// the f16 one.  epsilon = 1e-6 (LLaMA-1; LLaMA-2 uses 1e-5).
//
// Shapes in rmsnorm.astra.json (d = hidden size):
//     T = 1,     d = 4096, s = 4096    LLaMA-7B, one decode token
//     T = 256,   d = 5120, s = 10240   LLaMA-13B, 256 tokens, the input being
//                                      the first half of a [T, 2*d] buffer
//     T = 4096,  d = 8192, s = 8192    LLaMA-70B, a 4096-token prefill chunk
//     T = 16384, d = 8192, s = 8192    LLaMA-70B, 16384 tokens
//                                      (input 268 MB, output 268 MB)
// Tolerance: rtol 1e-3; a different summation order (e.g. a warp-shuffle
// reduction) changes inv_rms by an f32 ulp or so, which can flip one f16
// rounding (<= 2^-10 relative).

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

template <typename T_>
__global__ void rmsnorm(T_* out, const T_* input, int input_stride,
                        const T_* weight, float epsilon, int d) {
  __shared__ float partial[1024];

  const int64_t token = blockIdx.x;
  const T_* x = input + token * input_stride;
  T_* y = out + token * d;

  // Each thread sums the squares of its strided share of the row.
  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = static_cast<float>(x[i]);
    sum_sq += v * v;
  }

  // Tree reduction in shared memory.
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
    float v = static_cast<float>(x[i]);
    float w = static_cast<float>(weight[i]);
    y[i] = static_cast<T_>(v * inv_rms * w);
  }
}

template __global__ void rmsnorm<__half>(__half*, const __half*, int,
                                         const __half*, float, int);
template __global__ void rmsnorm<__nv_bfloat16>(__nv_bfloat16*,
                                                const __nv_bfloat16*, int,
                                                const __nv_bfloat16*, float,
                                                int);
