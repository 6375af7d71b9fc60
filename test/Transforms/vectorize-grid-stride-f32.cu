// REQUIRES: cuda-headers
// Grid-stride f32 loop, in place (y is loaded and stored at the same offset),
// with 16-byte (float4) and 8-byte (float2) accesses.
// RUN: %astra-opt --apply=vectorize-loads %s -o %t.cu
// RUN: grep -v "^//" %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --apply=vectorize-loads:width=8 %s -o %t8.cu
// RUN: grep -v "^//" %t8.cu | FileCheck %s --check-prefix=W8
// RUN: %astra-opt --emit-ptx %t8.cu | FileCheck %s --check-prefix=PTX8

__global__ void axpy(float *y, const float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// CHECK:      if ((blockDim.x * gridDim.x) < n && reinterpret_cast<size_t>(y) % 16 == 0 &&
// CHECK-NEXT:     reinterpret_cast<size_t>(x) % 16 == 0) {
// CHECK-NEXT:   // astra-opt vectorize-loads: 16-byte accesses, 4 consecutive elements per
// CHECK:        constexpr int VecW = 4;
// CHECK-NEXT:   union VecF32 {
// CHECK-NEXT:     float4 u;
// CHECK-NEXT:     float v[VecW];
// CHECK-NEXT:   };
// CHECK-NEXT:   for (int vecIdx = blockIdx.x * blockDim.x + threadIdx.x; vecIdx < n / VecW;
// CHECK-NEXT:        vecIdx += blockDim.x * gridDim.x) {
// CHECK-NEXT:     const int vecBase = vecIdx * VecW;
// CHECK-NEXT:     VecF32 yVec;
// CHECK-NEXT:     VecF32 xVec;
// CHECK-NEXT:     yVec.u = *reinterpret_cast<const float4 *>(y + vecBase);
// CHECK-NEXT:     xVec.u = *reinterpret_cast<const float4 *>(x + vecBase);
// CHECK-NEXT: {{ *}}#pragma unroll
// CHECK-NEXT:     for (int lane = 0; lane < VecW; ++lane) {
// CHECK-NEXT:       yVec.v[lane] = a * xVec.v[lane] + yVec.v[lane];
// CHECK-NEXT:     }
// CHECK-NEXT:     *reinterpret_cast<float4 *>(y + vecBase) = yVec.u;
// CHECK-NEXT:   }
// CHECK:        const auto vecEnd = n / VecW * VecW;
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i < vecEnd)
// CHECK-NEXT:     i += ((vecEnd - i - 1) / (blockDim.x * gridDim.x) + 1) * (blockDim.x * gridDim.x);
// CHECK-NEXT:   for (; i < n; i += blockDim.x * gridDim.x) {
// CHECK-NEXT:     y[i] = a * x[i] + y[i];
// CHECK-NEXT:   }
// CHECK-NEXT: } else {
// CHECK-NEXT:   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// CHECK-NEXT:        i += blockDim.x * gridDim.x)
// CHECK-NEXT:     y[i] = a * x[i] + y[i];
// CHECK-NEXT: }

// PTX: ld.global.v4.{{[bf]}}32
// PTX: ld.global.v4.{{[bf]}}32
// PTX: st.global.v4.{{[bf]}}32

// W8:      if ((blockDim.x * gridDim.x) < n && reinterpret_cast<size_t>(y) % 8 == 0 &&
// W8-NEXT:     reinterpret_cast<size_t>(x) % 8 == 0) {
// W8:        constexpr int VecW = 2;
// W8-NEXT:   union VecF32 {
// W8-NEXT:     float2 u;
// W8:          yVec.u = *reinterpret_cast<const float2 *>(y + vecBase);
// W8:          *reinterpret_cast<float2 *>(y + vecBase) = yVec.u;

// PTX8: ld.global.v2.{{[bf]}}32
// PTX8: st.global.v2.{{[bf]}}32
