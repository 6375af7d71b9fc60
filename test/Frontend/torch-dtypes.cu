// torch's element types map to the spec dtypes of their CUDA counterparts:
// at::Half / c10::Half -> f16, at::BFloat16 / c10::BFloat16 -> bf16,
// c10::Float8_e4m3fn -> fp8e4m3, c10::Float8_e5m2 -> fp8e5m2; a struct of the
// same name elsewhere gets none. A template launched only from host code
// (a switch over the scalar type) lists those instantiations, and a spec may
// name one with the at:: alias. The c10 types are declared here as torch's
// headers do (same names, sizes and namespaces), so this test needs no torch.
// REQUIRES: cuda-headers
// RUN: rm -rf %t && mkdir -p %t
// RUN: %astra-opt --print-kernel-model %s -o %t/model.json
// RUN: FileCheck %s --input-file=%t/model.json
// RUN: %astra-opt --emit-spec %s -o %t/spec.json
// RUN: FileCheck %s --input-file=%t/spec.json --check-prefix=SPEC
// RUN: %astra-opt --check-spec --spec %S/Inputs/torch-dtypes.astra.json %s | FileCheck %s --check-prefix=CHECKSPEC

#include <cuda_runtime.h>
#include <cstdint>

namespace c10 {
struct alignas(2) Half {
  unsigned short x;
};
struct alignas(2) BFloat16 {
  uint16_t x;
};
struct alignas(1) Float8_e4m3fn {
  uint8_t x;
};
struct alignas(1) Float8_e5m2 {
  uint8_t x;
};
enum class ScalarType : int8_t { Half, BFloat16 };
} // namespace c10
namespace at {
using c10::BFloat16;
using c10::Half;
using c10::ScalarType;
} // namespace at
namespace other {
struct Half {
  unsigned short x;
};
} // namespace other

__global__ void torch_types(at::Half *h, const c10::BFloat16 *b,
                            c10::Float8_e4m3fn *e4, const c10::Float8_e5m2 *e5,
                            other::Half *o, int n) {}

template <typename T> __global__ void fill(T *p, T v, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    p[i] = v;
}

void launch_fill(at::ScalarType t, void *p, int n) {
  switch (t) {
  case at::ScalarType::Half:
    fill<at::Half><<<1, 256>>>(static_cast<at::Half *>(p), at::Half{0x3c00},
                               n);
    break;
  case at::ScalarType::BFloat16:
    fill<<<1, 256>>>(static_cast<c10::BFloat16 *>(p), c10::BFloat16{0x3f80},
                     n);
    break;
  }
}

// CHECK-LABEL: "name": "torch_types",
// CHECK:      "params": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "const": false,
// CHECK-NEXT:     "dtype": "f16",
// CHECK-NEXT:     "element_type": "at::Half",
// CHECK:          "dtype": "bf16",
// CHECK-NEXT:     "element_type": "c10::BFloat16",
// CHECK:          "dtype": "fp8e4m3",
// CHECK-NEXT:     "element_type": "c10::Float8_e4m3fn",
// CHECK:          "dtype": "fp8e5m2",
// CHECK-NEXT:     "element_type": "c10::Float8_e5m2",
// CHECK:          "dtype": "",
// CHECK-NEXT:     "element_type": "other::Half",

// The template launched only from launch_fill's switch.
// CHECK-LABEL: "instantiations": [
// CHECK-NEXT:    {
// CHECK-NEXT:      "explicit": false,
// CHECK-NEXT:      "mangled_name": "_Z4fillIN3c104HalfEEvPT_S2_i",
// CHECK-NEXT:      "name": "fill<c10::Half>",
// CHECK-NEXT:      "params": [
// CHECK-NEXT:        {
// CHECK-NEXT:          "const": false,
// CHECK-NEXT:          "dtype": "f16",
// CHECK:           "explicit": false,
// CHECK-NEXT:      "mangled_name": "_Z4fillIN3c108BFloat16EEvPT_S2_i",
// CHECK-NEXT:      "name": "fill<c10::BFloat16>",
// CHECK-NEXT:      "params": [
// CHECK-NEXT:        {
// CHECK-NEXT:          "const": false,
// CHECK-NEXT:          "dtype": "bf16",
// CHECK:         "template_args": [
// CHECK-NEXT:      "c10::BFloat16"
// CHECK-NEXT:    ]
// CHECK-NEXT:  }
// CHECK-NEXT: ],
// CHECK-NEXT: "intrinsics"

// SPEC:      "kernel": "torch_types",
// SPEC-NEXT: "args": [
// SPEC-NEXT:   {"name": "h", "dtype": "f16",
// SPEC-NEXT:   {"name": "b", "dtype": "bf16",
// SPEC-NEXT:   {"name": "e4", "dtype": "fp8e4m3",
// SPEC-NEXT:   {"name": "e5", "dtype": "fp8e5m2",
// SPEC-NEXT:   {"name": "o", "dtype": "TODO: dtype of 'other::Half *'",
// SPEC:      "kernel": "fill<c10::Half>",
// SPEC-NEXT: "args": [
// SPEC-NEXT:   {"name": "p", "dtype": "f16",
// SPEC-NEXT:   {"name": "v", "dtype": "f16",
// SPEC:      "kernel": "fill<c10::BFloat16>",
// SPEC-NEXT: "args": [
// SPEC-NEXT:   {"name": "p", "dtype": "bf16",
// SPEC-NEXT:   {"name": "v", "dtype": "bf16",

// A spec naming fill<at::Half> (the alias) and fill<c10::BFloat16>.
// CHECKSPEC: torch-dtypes.astra.json: ok
