// Parameters: kind, type as written, element type, const, __restrict__ and
// the launch-spec dtype, per instantiation for templates.
// REQUIRES: cuda-headers
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdint>

struct Shape {
  int rows, cols;
};

__global__ void types(float4 *__restrict__ v, const __half2 *h2,
                      int8_t *q, const __nv_fp8_e4m3 *f8, size_t n,
                      unsigned short u, Shape s, double eps) {}

template <typename T, int Vec>
__global__ void copy(T *dst, const T *__restrict__ src, T scale) {}
template __global__ void copy<__nv_bfloat16, 8>(__nv_bfloat16 *,
                                                const __nv_bfloat16 *,
                                                __nv_bfloat16);

// CHECK-LABEL: "name": "types"
// CHECK:      "params": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "const": false,
// CHECK-NEXT:     "dtype": "f32",
// CHECK-NEXT:     "element_type": "float4",
// CHECK-NEXT:     "kind": "pointer",
// CHECK-NEXT:     "lanes": 4,
// CHECK-NEXT:     "name": "v",
// CHECK-NEXT:     "restrict": true,
// CHECK-NEXT:     "type": "float4 *__restrict__"
// CHECK:          "const": true,
// CHECK-NEXT:     "dtype": "f16",
// CHECK-NEXT:     "element_type": "__half2",
// CHECK-NEXT:     "kind": "pointer",
// CHECK-NEXT:     "lanes": 2,
// CHECK-NEXT:     "name": "h2",
// CHECK-NEXT:     "restrict": false,
// CHECK-NEXT:     "type": "const __half2 *"
// CHECK:          "dtype": "i8",
// CHECK-NEXT:     "element_type": "int8_t",
// CHECK:          "dtype": "fp8e4m3",
// CHECK-NEXT:     "element_type": "__nv_fp8_e4m3",
// CHECK:          "dtype": "u64",
// CHECK-NEXT:     "element_type": "size_t",
// CHECK-NEXT:     "kind": "scalar",
// CHECK-NEXT:     "name": "n",
// CHECK:          "dtype": "u16",
// CHECK-NEXT:     "element_type": "unsigned short",
// CHECK-NEXT:     "kind": "scalar",
// CHECK:          "dtype": "",
// CHECK-NEXT:     "element_type": "Shape",
// CHECK-NEXT:     "kind": "record",
// CHECK:          "dtype": "f64",
// CHECK-NEXT:     "element_type": "double",
// CHECK-NEXT:     "kind": "scalar",
// CHECK-NEXT:     "name": "eps",

// CHECK-LABEL: "instantiations": [
// CHECK:      "name": "copy<__nv_bfloat16, 8>",
// CHECK-NEXT: "params": [
// CHECK:        "dtype": "bf16",
// CHECK-NEXT:   "element_type": "__nv_bfloat16",
// CHECK-NEXT:   "kind": "pointer",
// CHECK-NEXT:   "name": "dst",
// CHECK:        "const": true,
// CHECK-NEXT:   "dtype": "bf16",
// CHECK:        "restrict": true,
// CHECK-NEXT:   "type": "const __nv_bfloat16 *__restrict"
// CHECK:        "dtype": "bf16",
// CHECK-NEXT:   "element_type": "__nv_bfloat16",
// CHECK-NEXT:   "kind": "scalar",
// CHECK-NEXT:   "name": "scale",
// CHECK:      "template_args": [
// CHECK-NEXT:   "__nv_bfloat16",
// CHECK-NEXT:   "8"
// CHECK:      "name": "copy",
// The template's own parameters have no dtype.
// CHECK:        "dtype": "",
// CHECK-NEXT:   "element_type": "T",
// CHECK-NEXT:   "kind": "pointer",
// CHECK-NEXT:   "name": "dst",
// CHECK:      "template_params": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "kind": "type",
// CHECK-NEXT:     "name": "T"
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "kind": "value",
// CHECK-NEXT:     "name": "Vec",
// CHECK-NEXT:     "type": "int"
