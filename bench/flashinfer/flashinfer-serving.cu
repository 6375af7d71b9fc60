// FlashInfer's activation and RMSNorm kernels as sglang's sgl-kernel
// instantiates them for fp16 (the GPU check of issue 13; see README.md
// beside this file). Nothing of FlashInfer is in this repository: compile
// with -I<FlashInfer's include directory>.
//
// sgl-kernel's silu_and_mul launches
//   flashinfer::activation::act_and_mul_kernel<c_type, silu>
//     <<<num_tokens, min(d / (16 / sizeof(c_type)), 1024)>>>(out, input, d)
// with its own silu (a template on the element type, evaluated in float),
// and its rmsnorm / fused_add_rmsnorm call FlashInfer's launchers
// (flashinfer::norm::RMSNorm, FusedAddRMSNorm), which pick
// VEC_SIZE = gcd(16 / sizeof(T), d) (8 for __half at the hidden sizes of
// real models) and launch RMSNormKernel<VEC_SIZE, T> /
// FusedAddRMSNormKernel<VEC_SIZE, T> with grid (batch), block
// (32, ceil(min(1024, d / VEC_SIZE) / 32)).
#include <flashinfer/activation.cuh> // astra-inline: flashinfer::activation act_and_mul_kernel
#include <flashinfer/norm.cuh> // astra-inline: flashinfer::norm RMSNormKernel FusedAddRMSNormKernel

namespace detail {
template <typename T>
__device__ __forceinline__ float to_f32(const T &x) {
  return static_cast<float>(x);
}
template <typename T>
__device__ __forceinline__ T from_f32(float f) {
  return static_cast<T>(f);
}
} // namespace detail

template <typename T>
__device__ __forceinline__ T silu(const T &x) {
  float f = detail::to_f32(x);
  return detail::from_f32<T>(f / (1.0f + expf(-f)));
}

template __global__ void
flashinfer::activation::act_and_mul_kernel<__half, silu>(__half *__restrict__,
                                                         const __half *__restrict__,
                                                         const int);
template __global__ void flashinfer::norm::RMSNormKernel<8, __half>(
    __half *__restrict__, __half *__restrict__, __half *__restrict__,
    const uint32_t, const uint32_t, const uint32_t, float, float);
template __global__ void flashinfer::norm::FusedAddRMSNormKernel<8, __half>(
    __half *__restrict__, __half *__restrict__, __half *__restrict__,
    const uint32_t, const uint32_t, const uint32_t, float, float);
