// register-cache: a two-pass row kernel keeps the row it re-reads in
// registers (loaded once, 16-byte packs); a three-pass chain; a store between
// the passes at a fixed address; refusals with their reasons; composition
// with vectorize-loads in both orders.
// REQUIRES: cuda-headers
// RUN: %astra-opt --apply=register-cache %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=register-cache --apply=vectorize-loads %s -o %t.both.cu
// RUN: grep -v "^//" %t.both.cu | FileCheck %s --check-prefix=BOTH
// RUN: %astra-opt --apply=vectorize-loads %s | %astra-opt --list-rewrites - | FileCheck %s --check-prefix=AFTER

#include <cuda_fp16.h>
#include <stdint.h>

// CHECK-LABEL: __global__ void norm(
// CHECK:        float sum = 0.0f;
// CHECK-NEXT:   // astra-opt register-cache: rows x stay in registers (up to 4 16-byte packs
// CHECK:        constexpr int RcW = 16 / sizeof(__half);
// CHECK-NEXT:   struct alignas(sizeof(__half) * RcW) RcPackhalf {
// CHECK-NEXT:     __half v[RcW];
// CHECK-NEXT:   };
// CHECK-NEXT:   RcPackhalf xCache[4];
// CHECK-NEXT:   const bool rcFits = (d) % RcW == 0 &&
// CHECK-NEXT:       (d) / RcW <= 4 * blockDim.x &&
// CHECK-NEXT:       blockDim.y * blockDim.z == 1 &&
// CHECK-NEXT:       reinterpret_cast<size_t>(x) % sizeof(RcPackhalf) == 0 &&
// CHECK-NEXT:       reinterpret_cast<size_t>(y) % sizeof(RcPackhalf) == 0 &&
// CHECK-NEXT:       (reinterpret_cast<size_t>(x + (d)) <= reinterpret_cast<size_t>(y) || reinterpret_cast<size_t>(y + (d)) <= reinterpret_cast<size_t>(x));
// CHECK-NEXT:   if (rcFits) {
// CHECK-NEXT: {{ *}}#pragma unroll
// CHECK-NEXT:     for (int rcK = 0; rcK < 4; ++rcK) {
// CHECK-NEXT:       const int rcPack = threadIdx.x + rcK * blockDim.x;
// CHECK-NEXT:       if (rcPack < (d) / RcW) {
// CHECK-NEXT:         xCache[rcK] = *reinterpret_cast<const RcPackhalf *>(x + rcPack * RcW);
// CHECK-NEXT: {{ *}}#pragma unroll
// CHECK-NEXT:         for (int rcLane = 0; rcLane < RcW; ++rcLane) {
// CHECK-NEXT:           float v = __half2float(xCache[rcK].v[rcLane]);
// CHECK-NEXT:           sum += v * v;
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   } else {
// CHECK-NEXT:     for (int i = threadIdx.x; i < d; i += blockDim.x) {
// CHECK-NEXT:       float v = __half2float(x[i]);
// CHECK-NEXT:       sum += v * v;
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK:        if (rcFits) {
// CHECK-NEXT: {{ *}}#pragma unroll
// CHECK-NEXT:     for (int rcK = 0; rcK < 4; ++rcK) {
// CHECK-NEXT:       const int rcPack = threadIdx.x + rcK * blockDim.x;
// CHECK-NEXT:       if (rcPack < (d) / RcW) {
// CHECK-NEXT:         RcPackhalf yPack;
// CHECK-NEXT: {{ *}}#pragma unroll
// CHECK-NEXT:         for (int rcLane = 0; rcLane < RcW; ++rcLane) {
// CHECK-NEXT:           const int j = rcPack * RcW + rcLane;
// CHECK-NEXT:           yPack.v[rcLane] = __float2half(__half2float(xCache[rcK].v[rcLane]) * inv + j);
// CHECK-NEXT:         }
// CHECK-NEXT:         *reinterpret_cast<RcPackhalf *>(y + rcPack * RcW) = yPack;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   } else {
// CHECK-NEXT:     for (int j = threadIdx.x; j < d; j += blockDim.x) {
__global__ void norm(__half *out, const __half *in, int d) {
  __shared__ float partial[1024];
  __shared__ float total;
  const __half *x = in + (int64_t)blockIdx.x * d;
  __half *y = out + (int64_t)blockIdx.x * d;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = __half2float(x[i]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int k = 0; k < blockDim.x; ++k)
      total += partial[k];
  }
  __syncthreads();
  const float inv = rsqrtf(total / d + 1e-6f);
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    y[j] = __float2half(__half2float(x[j]) * inv + j);
  }
}

// Three passes over a float row and a store between them at a fixed address:
// the row is loaded once, and the guard keeps that store off the row.
// CHECK-LABEL: __global__ void three_pass(
// CHECK:        RcPackfloat rowCache[4];
// CHECK:            (reinterpret_cast<size_t>(row + (n)) <= reinterpret_cast<size_t>(&(stats[blockIdx.x])) || reinterpret_cast<size_t>(&(stats[blockIdx.x]) + 1) <= reinterpret_cast<size_t>(row));
// CHECK:          rowCache[rcK1] = *reinterpret_cast<const RcPackfloat *>(row + rcPack1 * RcW1);
// CHECK-NOT:      rowCache[rcK1] =
// CHECK:          m = fmaxf(m, rowCache[rcK1].v[rcLane1] - red[0]);
// CHECK-NOT:      rowCache[rcK1] =
// CHECK:          outPack.v[rcLane1] = rowCache[rcK1].v[rcLane1] * red[0];
// CHECK-LABEL: __global__ void other_row(
__global__ void three_pass(float *out, float *stats, const float *in, int n) {
  __shared__ float red[2];
  const float *row = in + (int64_t)blockIdx.x * n;
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    s += row[i];
  }
  // Per-thread partials (s, m) feed nothing that depends on which thread
  // owns which element (RegisterCacheChecks.cpp).
  if (threadIdx.x == 0)
    red[0] = row[0];
  __syncthreads();
  if (threadIdx.x == 0)
    stats[blockIdx.x] = red[0];
  float m = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    m = fmaxf(m, row[i] - red[0]);
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    out[(int64_t)blockIdx.x * n + i] = row[i] * red[0];
  }
}

// Refused: the second pass reads a row the first did not touch; a store
// between the passes through the row's own pointer; a pass that is not a
// block-strided loop over the same n.
__global__ void other_row(float *out, const float *a, const float *b, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    s += a[i];
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    out[i] = b[i] * s;
  }
}

__global__ void store_between(float *x, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    x[i] = x[i] * 2.0f;
    s += x[i];
  }
  x[threadIdx.x] = s;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    x[i] = x[i] / s;
  }
}

__global__ void other_length(float *out, const float *x, int n, int m) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    s += x[i];
  }
  for (int i = threadIdx.x; i < m; i += blockDim.x) {
    out[i] = x[i] * s;
  }
}

// PTX: .entry _Z4normP6__halfPKS_i(
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32

// LIST: register-cache norm norm:L0: applies: rows 'x' read once by norm:L0 and kept in registers for norm:L2 (16-byte packs, up to 4 per thread); every row access packed; guard: n % pack == 0, n within the packs, rows aligned and not overlapping, a one-dimensional block; fallback: the original loops
// LIST: register-cache three_pass three_pass:L0: applies: rows 'row' read once by three_pass:L0 and kept in registers for three_pass:L1, three_pass:L2
// LIST: register-cache other_row other_row:L0: does not apply: no later loop re-reads a row this loop reads or writes
// LIST: register-cache store_between store_between:L0: does not apply: line {{[0-9]+}}:3 uses 'x' between the loops, whose row the chain stores
// LIST: register-cache other_length other_length:L0: does not apply: no later loop of the block runs over the same row (same n, same thread index)
// LIST: register-cache:packs=8 norm norm:L0: applies: {{.*}} up to 8 per thread

// register-cache first: vectorize-loads then vectorizes the fallback loops.
// BOTH-LABEL: __global__ void norm(
// BOTH:       if (rcFits) {
// BOTH:       } else {
// BOTH-NEXT:    if (reinterpret_cast<size_t>(x) % 16 == 0 && blockDim.y * blockDim.z == 1) {
// BOTH-NEXT:      // astra-opt vectorize-loads: 16-byte accesses

// AFTER: register-cache norm norm:L{{[0-9]+}}: does not apply: the loop is one version of a loop vectorize-loads rewrote; apply register-cache first
