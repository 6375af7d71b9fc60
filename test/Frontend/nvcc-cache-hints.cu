// Cache-hint loads and stores as nvcc's headers declare them: astra-opt's
// astra_nvcc_compat.h supplies what Clang's CUDA wrappers lack (__ldca,
// __ldlu, __stcg, __stcs, __stwb, the `unsigned long` forms); the __half and
// __nv_bfloat16 forms come from the toolkit. See docs/nvcc-compat.md.
// REQUIRES: cuda-headers
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s
// RUN: %astra-opt --emit-ptx %s | FileCheck %s --check-prefix=PTX
// Without the compatibility header the same file does not compile.
// RUN: not %astra-opt --extra-arg=-DASTRA_NO_NVCC_COMPAT --emit-ptx %s 2>&1 | FileCheck %s --check-prefix=OFF

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void stream_scale(float4 *out, const float4 *in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float4 v = __ldcs(in + i);
  v.x *= a;
  v.y *= a;
  v.z *= a;
  v.w *= a;
  __stcs(out + i, v);
}

__global__ void half_hints(__half2 *h, __nv_bfloat162 *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  __half2 x = __ldlu(h + i);
  __stcg(h + i, __hadd2(x, x));
  __nv_bfloat162 y = __ldca(b + i);
  __stwb(b + i, y);
}

__global__ void ulong_hints(unsigned long *p, long *q, int4 *v) {
  int i = threadIdx.x;
  __stwt(p + i, __ldcg(p + i) + __ldcs(p + i) + __ldcv(p + i));
  __stwt(q + i, __ldlu(q + i));
  __stcg(v + i, __ldca(v + i));
}

// Every type nvcc declares the missing hints for.
#define ALL(T)                                                                 \
  __stcs(T##_p + i, __ldca(T##_p + i));                                        \
  __stcg(T##_p + i, __ldlu(T##_p + i));                                        \
  __stwb(T##_p + i, __ldca(T##_p + i));
typedef signed char schar;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef long long llong;
typedef unsigned long long ullong;
typedef unsigned long ulong;
#define PARAMS(X)                                                              \
  X(char) X(schar) X(uchar) X(short) X(ushort) X(int) X(uint) X(long)          \
  X(ulong) X(llong) X(ullong) X(float) X(double) X(char2) X(char4) X(uchar2)   \
  X(uchar4) X(short2) X(short4) X(ushort2) X(ushort4) X(int2) X(int4)          \
  X(uint2) X(uint4) X(longlong2) X(ulonglong2) X(float2) X(float4) X(double2)
#define DECL(T) T *T##_p,
__global__ void every_type(PARAMS(DECL) int i) { PARAMS(ALL) }

// CHECK: "name": "stream_scale",
// CHECK: "name": "half_hints",
// CHECK: "name": "ulong_hints",
// CHECK: "name": "every_type",

// PTX-LABEL: .entry _Z12stream_scaleP6float4PKS_fi(
// PTX: ld.global.cs.v4.f32
// PTX: st.global.cs.v4.f32
// PTX-LABEL: .entry _Z10half_hintsP7__half2P14__nv_bfloat162i(
// PTX: ld.global.lu.b32
// PTX: st.global.cg.b32
// PTX: ld.global.ca.b32
// PTX: st.global.wb.b32
// PTX-LABEL: .entry _Z11ulong_hintsPmPlP4int4(
// PTX-DAG: ld.global.cg.u64
// PTX-DAG: ld.global.cs.u64
// PTX-DAG: ld.global.cv.u64
// PTX-DAG: st.global.wt.u64
// PTX-DAG: ld.global.lu.s64
// PTX-DAG: st.global.wt.s64
// PTX-DAG: ld.global.ca.v4.s32
// PTX-DAG: st.global.cg.v4.s32
// PTX-LABEL: .entry _Z10every_type
// PTX-DAG: st.global.cs.s8
// PTX-DAG: ld.global.lu.v2.f64
// PTX-DAG: st.global.wb.v2.u64
// PTX-DAG: ld.global.ca.v4.u16

// OFF: error: no matching function for call to '__stcs'
