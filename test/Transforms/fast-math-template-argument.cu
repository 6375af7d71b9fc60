// fast-math follows template arguments that name functions: an activation
// passed as a function-pointer template parameter (act_and_mul<silu>, as in
// vLLM's activation kernels), a function template passed that way, and a
// functor type whose operator() the kernel calls. Where the function cannot
// be rewritten (a project header, no definition) a "does not apply" line
// says why.
// REQUIRES: cuda-headers
// RUN: rm -rf %t && mkdir -p %t
// RUN: %astra-opt --list-rewrites %s | grep ': fast-math' | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=fast-math:function=silu %s -o %t/silu.cu
// RUN: grep -v '^//' %t/silu.cu | FileCheck %s --check-prefix=SILU
// RUN: %astra-opt --apply=fast-math %s -o %t/all.cu
// RUN: grep -v '^//' %t/all.cu | FileCheck %s --check-prefix=ALL
// RUN: %astra-opt --apply=fast-math:kernel=unary %s | grep -v '^//' | FileCheck %s --check-prefix=UNARY
// RUN: not %astra-opt --apply=fast-math:function=header_silu %s 2>&1 | FileCheck %s --check-prefix=HEADER
// RUN: %astra-opt --list-options %s | grep ': fast-math:' | FileCheck %s --check-prefix=OPTIONS

#include <cuda_runtime.h>
#include "Inputs/fast-math-act.h"

__device__ __forceinline__ float silu(const float &x) {
  return x / (1.0f + expf(-x));
}

template <typename T> __device__ __forceinline__ T gelu_exp(const T &x) {
  return (T)((float)x * expf((float)x));
}

__device__ float extern_act(const float &x);

template <float (*ACT_FN)(const float &)>
__global__ void act_and_mul(float *out, const float *in, int d) {
  const long token = blockIdx.x;
  for (long i = threadIdx.x; i < d; i += blockDim.x) {
    const float x = in[token * 2 * d + i];
    const float y = in[token * 2 * d + d + i];
    out[token * d + i] = ACT_FN(x) * y;
  }
}

template __global__ void act_and_mul<silu>(float *, const float *, int);
template __global__ void act_and_mul<gelu_exp<float>>(float *, const float *,
                                                      int);
template __global__ void act_and_mul<header_silu>(float *, const float *, int);
template __global__ void act_and_mul<extern_act>(float *, const float *, int);

struct Softplus {
  __device__ float operator()(float x) const { return logf(1.0f + expf(x)); }
};

template <typename Op>
__global__ void unary(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = Op()(in[i]);
}

template __global__ void unary<Softplus>(float *, const float *, int);

// LIST:      fast-math function=silu (reached from act_and_mul<silu>): applies: x/y -> __fdividef(x, y) [changes rounding]
// LIST-NEXT: fast-math function=silu (reached from act_and_mul<silu>): applies: 'expf' -> '__expf' [changes rounding]
// LIST-NEXT: fast-math function=gelu_exp (reached from act_and_mul<gelu_exp<float>>): applies: 'expf' -> '__expf' [changes rounding]
// LIST-NEXT: {{.*}}fast-math-act.h:4:10: fast-math function=header_silu (reached from act_and_mul<header_silu>): does not apply: 'header_silu' is defined in '{{.*}}fast-math-act.h', not in the input file: rewrites edit only the input file
// LIST-NEXT: {{.*}}fast-math-act.h:4:22: fast-math function=header_silu (reached from act_and_mul<header_silu>): does not apply: 'header_silu' is defined in
// LIST-NEXT: fast-math function=Softplus::operator() (reached from unary<Softplus>): applies: 'logf' -> '__logf' [changes rounding]
// LIST-NEXT: fast-math function=Softplus::operator() (reached from unary<Softplus>): applies: 'expf' -> '__expf' [changes rounding]
// LIST-NEXT: fast-math function=extern_act (reached from act_and_mul<extern_act>): does not apply: 'extern_act' is passed as template argument 'ACT_FN' of act_and_mul<extern_act> but not defined in this translation unit: its math cannot be seen
// LIST-NOT:  {{.}}

// SILU:      __device__ __forceinline__ float silu(const float &x) {
// SILU-NEXT:   return __fdividef(x, 1.0f + __expf(-x));
// SILU-NEXT: }
// SILU-EMPTY:
// SILU-NEXT: template <typename T> __device__ __forceinline__ T gelu_exp(const T &x) {
// SILU-NEXT:   return (T)((float)x * expf((float)x));

// ALL:      return __fdividef(x, 1.0f + __expf(-x));
// ALL:      return (T)((float)x * __expf((float)x));
// ALL:      __device__ float operator()(float x) const { return __logf(1.0f + __expf(x)); }

// The functor is reached from unary alone: kernel=unary covers it.
// UNARY:      return x / (1.0f + expf(-x));
// UNARY:      __device__ float operator()(float x) const { return __logf(1.0f + __expf(x)); }

// HEADER:      error: rewrite 'fast-math' does not apply to function header_silu
// HEADER-NEXT: fast-math-act.h:4:10: note: in device function 'header_silu' (reached from act_and_mul<header_silu>): 'header_silu' is defined in

// OPTIONS:      fast-math:kernel=act_and_mul: x/y -> __fdividef(x, y); 'expf' -> '__expf' [changes rounding]
// OPTIONS-NEXT: fast-math:kernel=unary: 'logf' -> '__logf'; 'expf' -> '__expf' [changes rounding]
// OPTIONS-NEXT: fast-math:function=silu: x/y -> __fdividef(x, y); 'expf' -> '__expf' [changes rounding]
// OPTIONS-NEXT: fast-math:function=gelu_exp: 'expf' -> '__expf' [changes rounding]
// OPTIONS-NOT:  {{.}}

// The kernel model follows the same template arguments: silu's math is
// listed under act_and_mul with "function": "silu".
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s --check-prefix=MODEL
// MODEL:      "device_calls": [
// MODEL-NEXT:   "silu",
// MODEL-NEXT:   "gelu_exp",
// MODEL-NEXT:   "header_silu"
// MODEL-NEXT: ],
// MODEL:      "function": "silu",
// MODEL:      "name": "expf",
