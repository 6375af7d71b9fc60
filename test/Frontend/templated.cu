// Templated on the element type, with device helpers in a namespace (called,
// never reported as kernels), explicit instantiations and a host launcher.
// REQUIRES: cuda-headers
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

namespace vllm {
namespace detail {
template <typename T> __device__ __forceinline__ float to_float(T v) {
  return static_cast<float>(v);
}
__device__ __forceinline__ float silu(float x) { return x / (1.0f + expf(-x)); }
} // namespace detail

template <typename scalar_t>
__global__ void act_and_mul(scalar_t *__restrict__ out,
                            const scalar_t *__restrict__ input, const int d) {
  const int64_t token = blockIdx.x;
  for (int64_t idx = threadIdx.x; idx < d; idx += blockDim.x) {
    const float x = detail::to_float(input[token * 2 * d + idx]);
    const float y = detail::to_float(input[token * 2 * d + d + idx]);
    out[token * d + idx] = (scalar_t)(detail::silu(x) * y);
  }
}
} // namespace vllm

template __global__ void vllm::act_and_mul<__half>(__half *, const __half *,
                                                   const int);
template __global__ void
vllm::act_and_mul<__nv_bfloat16>(__nv_bfloat16 *, const __nv_bfloat16 *,
                                 const int);

void run(float *out, const float *in, int tokens, int d, cudaStream_t s) {
  dim3 grid(tokens), block(d < 1024 ? d : 1024);
  vllm::act_and_mul<float><<<grid, block, 0, s>>>(out, in, d);
}

// Only the kernel is a kernel.
// CHECK-NOT: "name": "silu"
// CHECK-NOT: "name": "to_float"
// CHECK:      "accesses": [
// CHECK:          "element_type": "scalar_t",
// CHECK-NEXT:     "index": "token * 2 * d + idx",
// CHECK-NEXT:     "kind": "load",
// CHECK-NEXT:     "line": 23,
// CHECK-NEXT:     "loop": "act_and_mul:L0",
// CHECK-NEXT:     "pointer": "input",
// CHECK-NEXT:     "text": "input[token * 2 * d + idx]",
// CHECK-NEXT:     "unit_stride": true
// CHECK:          "index": "token * 2 * d + d + idx",
// CHECK:          "unit_stride": true
// CHECK:          "index": "token * d + idx",
// CHECK-NEXT:     "kind": "store",
// CHECK:          "unit_stride": true
// CHECK:      "device_calls": [
// CHECK-NEXT:   "vllm::detail::to_float",
// CHECK-NEXT:   "vllm::detail::silu"
// CHECK-NEXT: ],
// CHECK:      "instantiations": [
// CHECK:          "mangled_name": "_ZN4vllm11act_and_mulI6__halfEEvPT_PKS2_i",
// CHECK-NEXT:     "name": "act_and_mul<__half>",
// CHECK:              "dtype": "f16",
// CHECK-NEXT:         "element_type": "__half",
// CHECK-NEXT:         "kind": "pointer",
// CHECK-NEXT:         "name": "out",
// CHECK:          "name": "act_and_mul<__nv_bfloat16>",
// CHECK:              "dtype": "bf16",
// CHECK:          "explicit": false,
// CHECK-NEXT:     "mangled_name": "_ZN4vllm11act_and_mulIfEEvPT_PKS1_i",
// CHECK-NEXT:     "name": "act_and_mul<float>",
// CHECK:              "dtype": "f32",
// CHECK:      "loops": [
// CHECK:          "class": "block-stride",
// CHECK:          "id": "act_and_mul:L0",
// CHECK-NEXT:     "induction_var": "idx",
// Math calls in helpers are listed with the helper and the call site's loop.
// CHECK:      "math_calls": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "col": 59,
// CHECK-NEXT:     "file": "{{.*}}templated.cu",
// CHECK-NEXT:     "function": "vllm::detail::silu",
// CHECK-NEXT:     "line": 15,
// CHECK-NEXT:     "loop": "act_and_mul:L0",
// CHECK-NEXT:     "name": "/",
// CHECK-NEXT:     "text": "x / (1.0f + expf(-x))",
// CHECK-NEXT:     "type": "float"
// CHECK:          "function": "vllm::detail::silu",
// CHECK:          "name": "expf",
// CHECK:      "name": "act_and_mul",
// CHECK:      "qualifier": "vllm::",
// CHECK:      "template_params": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "kind": "type",
// CHECK-NEXT:     "name": "scalar_t"
// CHECK-NOT: "name": "silu"
