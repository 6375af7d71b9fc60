// Sites in device functions: listed under the function with the kernels that
// reach it, selected with function=NAME; kernel=K selects K's body and the
// device functions only K reaches. A plan step with function= replays.
// REQUIRES: cuda-headers
// RUN: rm -rf %t && mkdir -p %t
// RUN: %astra-opt --list-rewrites %s | grep ': fast-math' | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --list-rewrites --json %s -o %t/sites.json
// RUN: FileCheck %s --check-prefix=JSON < %t/sites.json
// RUN: %astra-opt --list-options %s | grep ': fast-math:' | FileCheck %s --check-prefix=OPTIONS
// RUN: %astra-opt --apply=fast-math:function=softplus %s -o %t/softplus.cu
// RUN: grep -v '^//' %t/softplus.cu | FileCheck %s --check-prefix=SOFTPLUS
// RUN: %astra-opt --apply=fast-math:kernel=k2 %s -o %t/k2.cu
// RUN: grep -v '^//' %t/k2.cu | FileCheck %s --check-prefix=K2
// RUN: %astra-opt --apply=fast-math:function=k2 %s -o %t/k2body.cu
// RUN: grep -v '^//' %t/k2body.cu | FileCheck %s --check-prefix=K2BODY
// RUN: not %astra-opt --apply=fast-math:kernel=k1 %s -o %t/k1.cu 2>&1 | FileCheck %s --check-prefix=K1
// RUN: not test -e %t/k1.cu
// RUN: not %astra-opt --apply=fast-math:function=nope %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %astra-opt --apply=fast-math:function=softplus,kernel=k1 %s 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not %astra-opt --apply=unroll:function=softplus %s 2>&1 | FileCheck %s --check-prefix=UNROLL
// RUN: %astra-opt --apply=unroll:function=k2 %s | grep -v '^//' | FileCheck %s --check-prefix=UNROLLK2
// Each step of a plan applies alone: function= then kernel=, as --apply does.
// RUN: %astra-opt --apply=fast-math:function=softplus --apply=fast-math:kernel=k2 %s -o %t/both.cu
// RUN: echo '{"astra_plan": 1, "source_hash": "x", "kernels": [{"kernel": "k2", "steps": ["fast-math:function=softplus", "fast-math:kernel=k2"]}]}' > %t/plan.json
// RUN: %astra-opt --apply-plan %t/plan.json %s -o %t/replayed.cu 2> /dev/null
// RUN: cmp %t/both.cu %t/replayed.cu
// RUN: grep -v '^//' %t/replayed.cu | FileCheck %s --check-prefix=BOTHOUT

#include <cuda_runtime.h>

__device__ float softplus(float x) { return logf(1.0f + expf(x)); }
__device__ float inverse(float x) { return 1.0f / x; }

__global__ void k1(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = softplus(in[i]);
}

__global__ void k2(float *out, const float *in, float s, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = softplus(in[i]) * inverse(in[i]) / s;
}

// LIST:      fast-math k2 k2:L0: applies: x/y -> __fdividef(x, y) [changes rounding]
// LIST-NEXT: fast-math k3: applies: 'expf' -> '__expf' [changes rounding]
// LIST-NEXT: fast-math function=softplus (reached from k1, k2): applies: 'logf' -> '__logf' [changes rounding]
// LIST-NEXT: fast-math function=softplus (reached from k1, k2): applies: 'expf' -> '__expf' [changes rounding]
// LIST-NEXT: fast-math function=inverse (reached from k2): applies: 1/x -> __frcp_rn(x) [changes rounding]
// LIST-NOT:  {{.}}

// JSON:      "detail": "'logf' -> '__logf'",
// JSON-NEXT: "file": "{{.*}}fast-math-device-functions.cu",
// JSON-NEXT: "function": "softplus",
// JSON-NEXT: "kernel": null,
// JSON-NEXT: "line": 31,
// JSON-NEXT: "loop": null,
// JSON-NEXT: "params": {
// JSON-NEXT:   "ops": "all"
// JSON-NEXT: },
// JSON-NEXT: "reached_from": [
// JSON-NEXT:   "k1",
// JSON-NEXT:   "k2"
// JSON-NEXT: ],

// kernel=k2 takes k2's body and inverse (only k2 calls it), not softplus;
// softplus and inverse are options of their own.
// OPTIONS:      fast-math:kernel=k2: x/y -> __fdividef(x, y); 1/x -> __frcp_rn(x) [changes rounding]
// OPTIONS-NEXT: fast-math:kernel=k3: 'expf' -> '__expf' [changes rounding]
// OPTIONS-NEXT: fast-math:function=softplus: 'logf' -> '__logf'; 'expf' -> '__expf' [changes rounding]
// OPTIONS-NEXT: fast-math:function=inverse: 1/x -> __frcp_rn(x) [changes rounding]
// OPTIONS-NOT:  {{.}}

// SOFTPLUS:      __device__ float softplus(float x) { return __logf(1.0f + __expf(x)); }
// SOFTPLUS-NEXT: __device__ float inverse(float x) { return 1.0f / x; }
// SOFTPLUS:      out[i] = softplus(in[i]) * inverse(in[i]) / s;

// K2:      __device__ float softplus(float x) { return logf(1.0f + expf(x)); }
// K2-NEXT: __device__ float inverse(float x) { return __frcp_rn(x); }
// K2:      out[i] = __fdividef(softplus(in[i]) * inverse(in[i]), s);

// K2BODY:      __device__ float inverse(float x) { return 1.0f / x; }
// K2BODY:      out[i] = __fdividef(softplus(in[i]) * inverse(in[i]), s);

// K1:      error: rewrite 'fast-math' does not apply to kernel k1: no candidate site found
// K1-NEXT: fast-math-device-functions.cu:31:45: note: device function 'softplus', which k1 calls, has sites but other kernels reach it too (k1, k2): select it with function=softplus

// UNKNOWN: error: unknown function 'nope'; device functions reached from the kernels: softplus, inverse; kernels: k1, k2, k3

// BOTH: error: --apply=fast-math:function=softplus,kernel=k1: function= selects a whole function and goes without kernel= and loop=

// UNROLL: error: rewrite 'unroll' does not apply to function softplus: no candidate site found

// UNROLLK2:      #pragma unroll 4
// UNROLLK2-NEXT: for (int i = threadIdx.x; i < n; i += blockDim.x)

// BOTHOUT:      __device__ float softplus(float x) { return __logf(1.0f + __expf(x)); }
// BOTHOUT-NEXT: __device__ float inverse(float x) { return __frcp_rn(x); }
// BOTHOUT:      out[i] = __fdividef(softplus(in[i]) * inverse(in[i]), s);

// A lambda's body belongs to the kernel that writes it, not a function of
// its own.
__global__ void k3(float *out, const float *in) {
  auto act = [](float x) { return expf(x); };
  out[threadIdx.x] = act(in[threadIdx.x]);
}
