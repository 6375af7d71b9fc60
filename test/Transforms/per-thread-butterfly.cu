// register-cache and vectorize-loads with a warp's xor butterfly after the
// loop: `for (o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o)`
// leaves every lane the sum of its warp's 32 values, which is the block's
// when blockDim.x is 32; the rewrites apply with that in their guard
// (WarpButterfly.cpp). A butterfly over fewer lanes (shorter offsets, a
// partial mask or width), a __shfl_down_sync chain, a read of the value
// before the butterfly, a jump between, another operation, or a loop over
// threadIdx.y is refused.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | grep -E " (register-cache|vectorize-loads) .*:L0:" | FileCheck %s
// RUN: %astra-opt --apply=register-cache:kernel=fly_ok %s | grep -v '^//' | FileCheck %s --check-prefix=RC
// RUN: %astra-opt --apply=vectorize-loads:loop=fly_up_max:L0 %s | grep -v '^//' | FileCheck %s --check-prefix=VEC
// RUN: %astra-opt --emit-ptx %s -o /dev/null
#include <cuda_runtime.h>

__global__ void fly_ok(float *out, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = x[i];
    ss += v * v;
  }
  for (int o = 16; o > 0; o /= 2)
    ss += __shfl_xor_sync(0xffffffff, ss, o);
  const float inv = rsqrtf(ss / d + 1e-6f);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * inv;
  }
}
// CHECK-DAG: vectorize-loads fly_ok fly_ok:L0: applies:
// CHECK-DAG: register-cache fly_ok fly_ok:L0: applies:
// RC:      const bool rcFits =
// RC:          blockDim.x == 32 &&
// RC:      for (int o = 16; o > 0; o /= 2)
// RC-NEXT:   ss += __shfl_xor_sync(0xffffffff, ss, o);
// RC-NEXT: const float inv = rsqrtf(ss / d + 1e-6f);
// RC-NEXT: if (rcFits) {

__global__ void fly_up_max(float *out, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float ss = -INFINITY;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = x[i];
    ss = fmaxf(ss, v);
  }
#pragma unroll
  for (int o = 1; o < 32; o <<= 1)
    ss = fmaxf(ss, __shfl_xor_sync(0xffffffffu, ss, o));
  const float inv = rsqrtf(ss / d + 1e-6f);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * inv;
  }
}
// Ascending offsets under #pragma unroll, a max.
// CHECK-DAG: vectorize-loads fly_up_max fly_up_max:L0: applies:
// CHECK-DAG: register-cache fly_up_max fly_up_max:L0: applies:
// VEC-LABEL: void fly_up_max(
// VEC:       if (reinterpret_cast<size_t>(x) % 16 == 0 && blockDim.x == 32) {
// VEC:       } else {
// VEC:       for (int o = 1; o < 32; o <<= 1)

__global__ void fly_down(float *out, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = x[i];
    ss += v * v;
  }
  for (int o = 16; o > 0; o /= 2)
    ss += __shfl_down_sync(0xffffffff, ss, o);
  const float inv = rsqrtf(ss / d + 1e-6f);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * inv;
  }
}
// Shuffles down leave the sum in lane 0 only.
// CHECK-DAG: vectorize-loads fly_down fly_down:L0: does not apply: loop fly_down:L0: line {{[0-9:]+}} uses 'ss', which the loop at line {{[0-9:]+}} leaves per thread
// CHECK-DAG: register-cache fly_down fly_down:L0: does not apply: line {{[0-9:]+}} uses 'ss', which the loop at line {{[0-9:]+}} leaves per thread

__global__ void fly_short(float *out, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = x[i];
    ss += v * v;
  }
  for (int o = 8; o > 0; o /= 2)
    ss += __shfl_xor_sync(0xffffffff, ss, o);
  const float inv = rsqrtf(ss / d + 1e-6f);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * inv;
  }
}
// Offsets 8 to 1: half-warps.
// CHECK-DAG: vectorize-loads fly_short fly_short:L0: does not apply: loop fly_short:L0: line {{[0-9:]+}} uses 'ss'
// CHECK-DAG: register-cache fly_short fly_short:L0: does not apply: line {{[0-9:]+}} uses 'ss'

__global__ void fly_mask(float *out, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = x[i];
    ss += v * v;
  }
  for (int o = 16; o > 0; o /= 2)
    ss += __shfl_xor_sync(0xffff, ss, o);
  const float inv = rsqrtf(ss / d + 1e-6f);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * inv;
  }
}
// A partial mask.
// CHECK-DAG: vectorize-loads fly_mask fly_mask:L0: does not apply: loop fly_mask:L0: line {{[0-9:]+}} uses 'ss'
// CHECK-DAG: register-cache fly_mask fly_mask:L0: does not apply: line {{[0-9:]+}} uses 'ss'

__global__ void fly_width(float *out, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = x[i];
    ss += v * v;
  }
  for (int o = 16; o > 0; o /= 2)
    ss += __shfl_xor_sync(0xffffffff, ss, o, 16);
  const float inv = rsqrtf(ss / d + 1e-6f);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * inv;
  }
}
// Width 16: two butterflies of 16 lanes.
// CHECK-DAG: vectorize-loads fly_width fly_width:L0: does not apply: loop fly_width:L0: line {{[0-9:]+}} uses 'ss'
// CHECK-DAG: register-cache fly_width fly_width:L0: does not apply: line {{[0-9:]+}} uses 'ss'

__global__ void fly_read_between(float *out, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = x[i];
    ss += v * v;
  }
  const float own = ss;
  for (int o = 16; o > 0; o /= 2)
    ss += __shfl_xor_sync(0xffffffff, ss, o);
  y[0] = own;
  const float inv = rsqrtf(ss / d + 1e-6f);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * inv;
  }
}
// The thread's own value, read before the butterfly.
// CHECK-DAG: vectorize-loads fly_read_between fly_read_between:L0: does not apply: loop fly_read_between:L0: line [[#]]:21 uses 'ss', which the loop

__global__ void fly_return_between(float *out, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = x[i];
    ss += v * v;
  }
  if (d < 0)
    return;
  for (int o = 16; o > 0; o /= 2)
    ss += __shfl_xor_sync(0xffffffff, ss, o);
  const float inv = rsqrtf(ss / d + 1e-6f);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * inv;
  }
}
// A return between the loop and the butterfly.
// CHECK-DAG: vectorize-loads fly_return_between fly_return_between:L0: does not apply: loop fly_return_between:L0: line {{[0-9:]+}} uses 'ss', which the loop

__global__ void fly_op_mismatch(float *out, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float v = x[i];
    ss += v * v;
  }
  for (int o = 16; o > 0; o /= 2)
    ss = fmaxf(ss, __shfl_xor_sync(0xffffffff, ss, o));
  const float inv = rsqrtf(ss / d + 1e-6f);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * inv;
  }
}
// A max over sums.
// CHECK-DAG: vectorize-loads fly_op_mismatch fly_op_mismatch:L0: does not apply: loop fly_op_mismatch:L0: line {{[0-9:]+}} takes the max of 'ss', which the loop at line {{[0-9:]+}} accumulates by sum
// CHECK-DAG: register-cache fly_op_mismatch fly_op_mismatch:L0: does not apply: line {{[0-9:]+}} takes the max of 'ss'

__global__ void fly_y(float *out, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float ss = 0.0f;
  for (int i = threadIdx.y; i < d; i += blockDim.y) {
    const float v = x[i];
    ss += v * v;
  }
  for (int o = 16; o > 0; o /= 2)
    ss += __shfl_xor_sync(0xffffffff, ss, o);
  const float inv = rsqrtf(ss / d + 1e-6f);
  for (int i = threadIdx.y; i < d; i += blockDim.y) {
    y[i] = x[i] * inv;
  }
}
// A loop over threadIdx.y: the butterfly runs over x.
// CHECK-DAG: vectorize-loads fly_y fly_y:L0: does not apply: loop fly_y:L0: line {{[0-9:]+}} uses 'ss' after the warp butterfly at line {{[0-9:]+}}, which combines the values of one warp
// CHECK-DAG: register-cache fly_y fly_y:L0: does not apply: line {{[0-9:]+}} uses 'ss' after the warp butterfly
