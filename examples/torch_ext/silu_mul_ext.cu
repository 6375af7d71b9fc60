// A torch CUDA extension of astra-opt's own: out = silu(x) * y on rows of
// [x | y], for float, double, at::Half and at::BFloat16 through
// AT_DISPATCH_FLOATING_TYPES_AND2, and a scale kernel on at::Half tensors
// picked with a switch over the scalar type. Built by setup.py (CUDAExtension)
// after astra-opt applied the plan in plans/.
#include <torch/extension.h>

template <typename scalar_t>
__global__ void silu_mul_kernel(scalar_t *__restrict__ out,
                                const scalar_t *__restrict__ in, int d) {
  const int64_t row = blockIdx.x;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float x = static_cast<float>(in[row * 2 * d + i]);
    const float y = static_cast<float>(in[row * 2 * d + d + i]);
    out[row * d + i] = static_cast<scalar_t>(x / (1.0f + expf(-x)) * y);
  }
}

__global__ void scale_half_kernel(at::Half *out, const at::Half *in,
                                  float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = static_cast<float>(in[i]) * s;
}

template <typename T>
__global__ void scale_kernel(T *out, const T *in, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = static_cast<T>(static_cast<float>(in[i]) * s);
}

torch::Tensor silu_mul(torch::Tensor in) {
  TORCH_CHECK(in.is_cuda() && in.is_contiguous(), "in: contiguous CUDA");
  const int64_t rows = in.size(0);
  const int d = static_cast<int>(in.size(1) / 2);
  torch::Tensor out = torch::empty({rows, d}, in.options());
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::ScalarType::Half, at::ScalarType::BFloat16, in.scalar_type(),
      "silu_mul", [&] {
        silu_mul_kernel<scalar_t><<<rows, std::min(d, 1024)>>>(
            out.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), d);
      });
  return out;
}

torch::Tensor scale(torch::Tensor in, double s) {
  TORCH_CHECK(in.is_cuda() && in.is_contiguous(), "in: contiguous CUDA");
  torch::Tensor out = torch::empty_like(in);
  const int n = static_cast<int>(in.numel());
  const int blocks = std::min((n + 255) / 256, 4096);
  switch (in.scalar_type()) {
  case at::ScalarType::Half:
    scale_half_kernel<<<blocks, 256>>>(out.data_ptr<at::Half>(),
                                       in.data_ptr<at::Half>(), s, n);
    break;
  case at::ScalarType::BFloat16:
    scale_kernel<c10::BFloat16><<<blocks, 256>>>(
        out.data_ptr<c10::BFloat16>(), in.data_ptr<c10::BFloat16>(), s, n);
    break;
  case at::ScalarType::Float:
    scale_kernel<float><<<blocks, 256>>>(out.data_ptr<float>(),
                                         in.data_ptr<float>(), s, n);
    break;
  default:
    TORCH_CHECK(false, "scale: unsupported dtype ", in.scalar_type());
  }
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("silu_mul", &silu_mul, "silu(x) * y over rows of [x | y]");
  m.def("scale", &scale, "in * s");
}
