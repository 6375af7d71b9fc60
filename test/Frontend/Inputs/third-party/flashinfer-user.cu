// A kernel of the user's own on FlashInfer's vector type (whose cast_load and
// cast_store call `vec_cast<tgt, src>::cast<vec_size>(...)` without
// `template`), beside the library's activation and RMSNorm kernels
// instantiated as a serving engine's launchers do. Needs FlashInfer's include
// directory (test/Frontend/third-party-flashinfer.test); nothing of
// FlashInfer is in this repository.
#include <flashinfer/activation.cuh>
#include <flashinfer/norm.cuh>

__device__ __forceinline__ float silu(const float &x) {
  return x / (1.0f + expf(-x));
}

template <typename T>
__global__ void gelu_tanh_and_mul(T *__restrict__ out,
                                  const T *__restrict__ in, int d) {
  constexpr uint32_t vec_size = 16 / sizeof(T);
  const int64_t token = blockIdx.x;
  for (uint32_t idx = threadIdx.x; idx < d / vec_size; idx += blockDim.x) {
    flashinfer::vec_t<float, vec_size> x, y;
    x.cast_load(in + token * 2 * d + idx * vec_size);
    y.cast_load(in + token * 2 * d + d + idx * vec_size);
#pragma unroll
    for (uint32_t i = 0; i < vec_size; ++i) {
      float v = x[i];
      float t = tanhf(0.7978845608f * (v + 0.044715f * v * v * v));
      x[i] = 0.5f * v * (1.f + t) * y[i];
    }
    x.cast_store(out + token * d + idx * vec_size);
  }
}

template __global__ void gelu_tanh_and_mul<__half>(__half *__restrict__,
                                                   const __half *__restrict__,
                                                   int);

void instantiate_library_kernels() {
  auto *act = flashinfer::activation::act_and_mul_kernel<__half, silu>;
  auto *rms = flashinfer::norm::RMSNormKernel<8, __half>;
  auto *fused = flashinfer::norm::FusedAddRMSNormKernel<8, __half>;
  (void)act;
  (void)rms;
  (void)fused;
}
