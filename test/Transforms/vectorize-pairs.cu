// REQUIRES: cuda-headers, libdevice
// The pairs form of vectorize-loads: one buffer stored at two offsets a
// loop-invariant distance apart (x[i] with x[i + h]), written in the loop
// (f32) or in a device function the loop calls (f16, rotary style), and two
// loops it must refuse (an offset read per element; two offsets no fixed
// distance apart).
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=vectorize-loads:kernel=butterfly_f32 %s -o %t.f32.cu
// RUN: grep -v "^//" %t.f32.cu | FileCheck %s --check-prefix=F32
// RUN: %astra-opt --emit-ptx %t.f32.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --apply=vectorize-loads:kernel=rope_f16 %s -o %t.f16.cu
// RUN: grep -v "^//" %t.f16.cu | FileCheck %s --check-prefix=F16
// RUN: %astra-opt --emit-ptx %t.f16.cu | FileCheck %s --check-prefix=PTX
// RUN: not %astra-opt --apply=vectorize-loads:kernel=pairs_variant %s 2>&1 | FileCheck %s --check-prefix=VARIANT
// RUN: not %astra-opt --apply=vectorize-loads:kernel=pairs_overlap %s 2>&1 | FileCheck %s --check-prefix=OVERLAP

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

// The pair written directly: x[i] with x[i + h] (a butterfly), f32.
__global__ void butterfly_f32(float *x, int h) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < h;
       i += blockDim.x * gridDim.x) {
    float a = x[i];
    float b = x[i + h];
    x[i] = a + b;
    x[i + h] = a - b;
  }
}

// Rotary pairs through a device function, f16: heads of 2 * half columns.
__device__ void rotate(__half *v, int j, int half, float c, float s) {
  float a = __half2float(v[j]);
  float b = __half2float(v[half + j]);
  v[j] = __float2half(a * c - b * s);
  v[half + j] = __float2half(b * c + a * s);
}

__global__ void rope_f16(__half *x, const __half *__restrict__ cs, int half,
                         int heads, int stride) {
  const int64_t row = blockIdx.x;
  for (int i = threadIdx.x; i < heads * half; i += blockDim.x) {
    int h = i / half;
    int j = i % half;
    __half *v = x + row * stride + h * 2 * half;
    float c = __half2float(cs[j]), s = __half2float(cs[half + j]);
    rotate(v, j, half, c, s);
  }
}

// Refused: the partner's offset is read per element.
__global__ void pairs_variant(float *x, const int *off, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    int k = off[i];
    float a = x[i];
    float b = x[i + k];
    x[i] = b;
    x[i + k] = a;
  }
}

// Refused: x[i] and x[i % half] are no fixed distance apart.
__global__ void pairs_overlap(float *x, int half, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float a = x[i];
    float b = x[i % half];
    x[i] = a + b;
    x[i % half] = a - b;
  }
}

// The butterfly's distance is its loop's extent: the widened form proves the
// two ranges disjoint (offsets apart) before the pairs form is tried.
// LIST: vectorize-loads butterfly_f32 butterfly_f32:L0: applies: 16-byte accesses to 2 pointer offset(s), 4 elements per thread and step; {{.*}}; accesses 'x' at offsets h apart (the extent of the index: disjoint ranges)
// LIST: vectorize-loads rope_f16 rope_f16:L0: applies: 16-byte accesses to 4 pointer offset(s), 8 elements per thread and step; {{.*}}; checks that half divide(s) into packs; a buffer stored at two offsets (pairs): checks that half is not zero; inlines rotate per lane
// LIST: vectorize-loads pairs_variant pairs_variant:L0: does not apply: {{.*}}; pairs: 'x' is stored, and its access 'x[i + k]' cannot be a lane of a vector access: its index varies over the elements of a pack other than by one per element
// LIST: vectorize-loads pairs_overlap pairs_overlap:L0: does not apply: {{.*}}; pairs: 'x' is accessed at 'x[i]' and 'x[i % half]', whose distance is not loop-invariant, so their packs may overlap

// F32:      __global__ void butterfly_f32(float *x, int h) {
// F32-NEXT:   if ((blockDim.x * gridDim.x) < h && reinterpret_cast<size_t>(x) % 16 == 0 &&
// F32-NEXT:       reinterpret_cast<size_t>(x + (h)) % 16 == 0) {
// F32:          for (int vecIdx = blockIdx.x * blockDim.x + threadIdx.x; vecIdx < h / VecW;
// F32-NEXT:          vecIdx += blockDim.x * gridDim.x) {
// F32-NEXT:       const int i = vecIdx * VecW;
// F32:              xVec0.u = *reinterpret_cast<const float4 *>(&x[i]);
// F32:              xVec1.u = *reinterpret_cast<const float4 *>(&x[i + h]);
// F32:              xVec0.v[lane] = a[lane] + b[lane];
// F32-NEXT:         xVec1.v[lane] = a[lane] - b[lane];
// F32:            *reinterpret_cast<float4 *>(&x[i]) = xVec0.u;
// F32-NEXT:       *reinterpret_cast<float4 *>(&x[i + h]) = xVec1.u;
// F32:          // Scalar tail
// F32:          for (; i < h; i += blockDim.x * gridDim.x) {
// F32-NEXT:       float a = x[i];
// F32-NEXT:       float b = x[i + h];
// F32:        } else {
// F32-NEXT:     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < h;

// F16:      const int64_t row = blockIdx.x;
// F16-NEXT: if (reinterpret_cast<size_t>(cs) % 16 == 0 &&
// F16-NEXT:     reinterpret_cast<size_t>(cs + half) % 16 == 0 &&
// F16-NEXT:     reinterpret_cast<size_t>(x + row * stride) % 16 == 0 &&
// F16-NEXT:     reinterpret_cast<size_t>(x + (row * stride + half)) % 16 == 0 &&
// F16-NEXT:     half % 8 == 0 && half != 0) {
// F16:          const int i = vecIdx * VecW;
// F16-NEXT:     int h = i / half;
// F16-NEXT:     int j = i % half;
// F16-NEXT:     __half *v = x + row * stride + h * 2 * half;
// F16:          csVec0.u = __ldg(reinterpret_cast<const uint4 *>(&cs[j]));
// F16-NEXT:     csVec1.u = __ldg(reinterpret_cast<const uint4 *>(&cs[half + j]));
// F16-NEXT:     xVec0.u = *reinterpret_cast<const uint4 *>(&v[j]);
// F16-NEXT:     xVec1.u = *reinterpret_cast<const uint4 *>(&v[half + j]);
// F16-NEXT:     #pragma unroll
// F16-NEXT:     for (int lane = 0; lane < VecW; ++lane) {
// F16-NEXT:       float c = __half2float(csVec0.v[lane]), s = __half2float(csVec1.v[lane]);
// F16-NEXT:       {
// F16-NEXT:         float c_ = c;
// F16-NEXT:         float s_ = s;
// F16-NEXT:         float a = __half2float(xVec0.v[lane]);
// F16-NEXT:         float b = __half2float(xVec1.v[lane]);
// F16-NEXT:         xVec0.v[lane] = __float2half(a * c_ - b * s_);
// F16-NEXT:         xVec1.v[lane] = __float2half(b * c_ + a * s_);
// F16-NEXT:       }
// F16-NEXT:     }
// F16-NEXT:     *reinterpret_cast<uint4 *>(&v[j]) = xVec0.u;
// F16-NEXT:     *reinterpret_cast<uint4 *>(&v[half + j]) = xVec1.u;
// F16:          for (; i < heads * half; i += blockDim.x) {
// F16:            rotate(v, j, half, c, s);
// F16:        } else {

// PTX: .entry
// PTX: ld.global.v4.b32
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
// PTX: st.global.v4.b32
// PTX-NOT: ld.local
// PTX-NOT: st.local

// VARIANT: note: {{.*}}pairs: 'x' is stored, and its access 'x[i + k]' cannot be a lane of a vector access
// OVERLAP: note: {{.*}}pairs: 'x' is accessed at 'x[i]' and 'x[i % half]', whose distance is not loop-invariant
