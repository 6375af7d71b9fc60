// layernorm: LayerNorm over the hidden dimension with f32 affine parameters
// (the f16-activation / f32-weight mix of GPT-NeoX / Falcon / OPT-class models
// served in half precision), one token per block.
//
// Computes, for every token t:
//
//     mean      = (1/d) * sum_i x[t, i]
//     var       = (1/d) * sum_i (x[t, i] - mean)^2        (two-pass, stable)
//     out[t, i] = (x[t, i] - mean) / sqrt(var + epsilon) * gamma[i] + beta[i]
//
// All arithmetic in f32; one rounding of the result to f16.
//
// Layout (row-major, contiguous):
//     input  [T, d]  f16
//     gamma  [d]     f32
//     beta   [d]     f32
//     out    [T, d]  f16
//
// Launch: grid = T (one block per token), block = 512 threads striding over
// the row.  Two shared-memory tree reductions (sum, then sum of squared
// deviations); blockDim.x must be a power of two <= 1024.
// epsilon = 1e-5 (the PyTorch LayerNorm default).
//
// Shapes in layernorm.astra.json (hidden sizes of the 7B / 13B / 70B class):
//     T = 1,     d = 4096   one decode token
//     T = 1024,  d = 5120   a 1024-sequence decode batch
//     T = 16384, d = 8192   16384 prefill tokens (input 268 MB, output 268 MB)
// Tolerance: rtol 1e-3 (a different summation order moves mean and variance
// by f32 ulps, which may flip one f16 rounding, <= 2^-10 relative); atol 1e-5
// covers outputs near zero, where v * gamma + beta cancels and the f32 error
// (~1e-7 absolute for unit-scale rows) is larger than rtol * |out|.

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

__global__ void layernorm(__half* out, const __half* input, const float* gamma,
                          const float* beta, float epsilon, int d) {
  __shared__ float partial[1024];

  const int64_t token = blockIdx.x;
  const __half* x = input + token * d;
  __half* y = out + token * d;

  // Pass 1: mean.
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    sum += __half2float(x[i]);
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      partial[threadIdx.x] += partial[threadIdx.x + s];
    }
    __syncthreads();
  }
  const float mean = partial[0] / d;
  __syncthreads();  // everyone has read partial[0] before it is reused

  // Pass 2: variance around the mean.
  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float diff = __half2float(x[i]) - mean;
    sum_sq += diff * diff;
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
  const float inv_std = 1.0f / sqrtf(variance + epsilon);

  // Pass 3: normalize and apply the affine transform.
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = (__half2float(x[i]) - mean) * inv_std;
    y[i] = __float2half(v * gamma[i] + beta[i]);
  }
}

// Host launcher.
void launch_layernorm(__half* out, const __half* input, const float* gamma,
                      const float* beta, float epsilon, int num_tokens, int d,
                      cudaStream_t stream) {
  if (num_tokens == 0) return;
  const int threads = 512;  // power of two: required by the tree reduction
  layernorm<<<num_tokens, threads, 0, stream>>>(out, input, gamma, beta,
                                                epsilon, d);
}
