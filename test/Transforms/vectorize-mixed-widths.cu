// vectorize-loads, plain form, on a template element type beside fixed
// ones (the quantize loop of per_token_fp8_quant: a `T_` input, an fp8
// output). One step is 16 / max(sizeof(T_), the fixed bytes) elements;
// each pointer gets a pack of that many of its elements, a struct aligned
// to its size: bf16 in, fp8 out is one 16-byte load and one 8-byte store
// per thread and step; half in, float out is 4 elements: one 8-byte load
// and one 16-byte store.
// RUN: %astra-opt --apply=vectorize-loads:loop=quant:L0 %s | FileCheck %s --check-prefix=SRC
// RUN: %astra-opt --apply=vectorize-loads:loop=quant:L0 --apply=vectorize-loads:loop=widen:L0 %s -o %t.cu
// RUN: %astra-opt --emit-ptx %t.cu -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s --check-prefix=LIST

#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

template <typename T_>
__global__ void quant(__nv_fp8_e4m3 *q, const T_ *x, float scale, int d) {
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = static_cast<float>(x[i]) / scale;
    q[i] = __nv_fp8_e4m3(fminf(fmaxf(v, -448.0f), 448.0f));
  }
}
template __global__ void quant<__nv_bfloat16>(__nv_fp8_e4m3 *,
                                              const __nv_bfloat16 *, float,
                                              int);

template <typename T_>
__global__ void widen(float *out, const T_ *x, int d) {
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[i] = static_cast<float>(x[i]) * 2.0f;
}
template __global__ void widen<__half>(float *, const __half *, int);

// SRC: if (reinterpret_cast<size_t>(x) % ((16 / (sizeof(T_) > 1 ? sizeof(T_) : 1)) * sizeof(T_)) == 0 &&
// SRC-NEXT: reinterpret_cast<size_t>(q) % ((16 / (sizeof(T_) > 1 ? sizeof(T_) : 1)) * sizeof(__nv_fp8_e4m3)) == 0) {
// SRC: constexpr int VecW = (16 / (sizeof(T_) > 1 ? sizeof(T_) : 1));
// SRC-NEXT: union VecT {
// SRC-NEXT: struct alignas(VecW * sizeof(T_)) Pack {
// SRC-NEXT: unsigned char b[VecW * sizeof(T_)];
// SRC-NEXT: } u;
// SRC-NEXT: T_ v[VecW];
// SRC-NEXT: };
// SRC-NEXT: union Vecnvfp8e4m3 {
// SRC-NEXT: struct alignas(VecW * sizeof(__nv_fp8_e4m3)) Pack {
// SRC: xVec.u = *reinterpret_cast<const typename VecT::Pack *>(x + vecBase);
// SRC: qVec.v[lane] = __nv_fp8_e4m3(fminf(fmaxf(v, -448.0f), 448.0f));
// SRC: *reinterpret_cast<typename Vecnvfp8e4m3::Pack *>(q + vecBase) = qVec.u;
// SRC: // Scalar tail: the last d % VecW elements
// SRC: } else {
// SRC-NEXT: for (int i = threadIdx.x; i < d; i += blockDim.x) {

// The bf16 -> fp8 instantiation: 16-byte loads, 8-byte stores.
// PTX-LABEL: .entry _Z5quantI13__nv_bfloat16EvP13__nv_fp8_e4m3PKT_fi(
// PTX: ld.global.v4.b32
// PTX: st.global.b64
// PTX-LABEL: .entry _Z5widenI6__halfEvPfPKT_i(
// PTX: ld.global.b64
// PTX: st.global.v4.b32

// LIST: vectorize-loads quant quant:L0: applies: 16-byte accesses to 2 pointer offset(s), (16 / (sizeof(T_) > 1 ? sizeof(T_) : 1)) elements per thread and step
// LIST: vectorize-loads widen widen:L0: applies: 16-byte accesses to 2 pointer offset(s), (16 / (sizeof(T_) > 4 ? sizeof(T_) : 4)) elements per thread and step
