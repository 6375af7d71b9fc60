// The launch rewrite refuses a new block size where a constant carries it but
// something else reads the constant (another kernel, a device function, host
// logic), where __launch_bounds__ computes it, and where it is a template
// parameter or argument of the kernel without template-arg (a new block size
// is a new instantiation: launch-template.cu); a block computed from a
// constant is left with a warning.
// REQUIRES: cuda-headers
//
// RUN: not %astra-opt --apply=launch:kernel=first,B=512,block=512 %s 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: not %astra-opt --apply=launch:kernel=second,block=512 %s 2>&1 | FileCheck %s --check-prefix=KERNEL2
// RUN: not %astra-opt --apply=launch:kernel=rows,block=512 %s 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not %astra-opt --apply=launch:kernel=helped,block=512 %s 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not %astra-opt --apply=launch:kernel=warps,block=512 %s 2>&1 | FileCheck %s --check-prefix=COMPUTED
// RUN: not %astra-opt --apply=launch:kernel=tsum,B=512,block=512 %s 2>&1 | FileCheck %s --check-prefix=TPARAM
// RUN: not %astra-opt --apply=launch:kernel=tsum,B=512 %s 2>&1 | FileCheck %s --check-prefix=TPARAM
// RUN: not %astra-opt --apply=launch:kernel=tfill,block=512 %s 2>&1 | FileCheck %s --check-prefix=TARG
// RUN: not %astra-opt --apply=launch:kernel=cfgk,block=512 %s 2>&1 | FileCheck %s --check-prefix=TDEP
// RUN: not %astra-opt --apply=launch:kernel=tconst,block=512 %s 2>&1 | FileCheck %s --check-prefix=TCONST
// RUN: not %astra-opt --apply=launch:kernel=macro,block=512 %s 2>&1 | FileCheck %s --check-prefix=MACRO
// RUN: %astra-opt --apply=launch:kernel=twice,block=512 %s 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST

#include <cuda_runtime.h>

#define MACRO_BLOCK 128

__device__ void fill(float *out, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = v;
}

constexpr int kShared = 256;
constexpr int kRows = 128;
constexpr int kHelp = 64;
constexpr int kWarps = 4;
constexpr int kTwice = 2 * 128;
constexpr int kTBlock = 64;

__global__ void __launch_bounds__(kShared) first(float *out, int n) {
  int i = blockIdx.x * kShared + threadIdx.x;
  if (i < n)
    out[i] = 1.0f;
}

__global__ void second(float *out, int n) { fill(out, n, 2.0f); }

__global__ void rows(float *out, int n) { fill(out, n, 3.0f); }

__device__ int helper(int i) { return i % kHelp; }

__global__ void helped(float *out, int n) {
  int i = blockIdx.x * kHelp + threadIdx.x;
  if (i < n)
    out[i] = helper(i);
}

__global__ void __launch_bounds__(kWarps * 32) warps(float *out, int n) { fill(out, n, 4.0f); }

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) tsum(float *out, const float *in,
                                              int n) {
  __shared__ float s[BLOCK];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    acc += in[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int j = 0; j < BLOCK; ++j)
      t += s[j];
    out[0] = t;
  }
}
template __global__ void tsum<256>(float *, const float *, int);

template <int BLOCK> __global__ void tfill(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 5.0f;
}

struct Cfg128 {
  static constexpr int kBlock = 128;
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kBlock) cfgk(float *out, int n) {
  __shared__ float s[Cfg::kBlock];
  s[threadIdx.x] = 9.0f;
  __syncthreads();
  int i = blockIdx.x * Cfg::kBlock + threadIdx.x;
  if (i < n)
    out[i] = s[Cfg::kBlock - 1 - threadIdx.x];
}

template <int BLOCK> __global__ void tconst(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 8.0f;
}

__global__ void __launch_bounds__(MACRO_BLOCK) macro(float *out, int n) { fill(out, n, 6.0f); }

__global__ void twice(float *out, int n) { fill(out, n, 7.0f); }

void launch_all(float *out, const float *in, int n) {
  first<<<(n + kShared - 1) / kShared, kShared>>>(out, n);
  second<<<(n + kShared - 1) / kShared, kShared>>>(out, n);
  cudaMemset(out, 0, kRows * sizeof(float));
  rows<<<(n + kRows - 1) / kRows, kRows>>>(out, n);
  helped<<<(n + kHelp - 1) / kHelp, kHelp>>>(out, n);
  warps<<<(n + 127) / 128, 128>>>(out, n);
  tsum<256><<<1, 256>>>(out, in, n);
  tfill<128><<<(n + 127) / 128, 128>>>(out, n);
  cfgk<Cfg128><<<(n + 127) / 128, Cfg128::kBlock>>>(out, n);
  tconst<kTBlock><<<(n + kTBlock - 1) / kTBlock, kTBlock>>>(out, n);
  macro<<<(n + 127) / 128, MACRO_BLOCK>>>(out, n);
  cudaMemset(out, 0, MACRO_BLOCK * sizeof(float));
  twice<<<(n + kTwice - 1) / kTwice, kTwice>>>(out, n);
}

// KERNEL: error: rewrite 'launch' does not apply to kernel first
// KERNEL-NEXT: note: launch of first: the block size is the constant kShared ({{[0-9]+}}:15), which is also used at {{[0-9]+}}:17 in host function launch_all: a new value would change that use too; give the kernel a constant of its own, or change the block size by hand

// KERNEL2: note: launch of second: the block size is the constant kShared ({{[0-9:]+}}), which is also used at {{[0-9]+}}:24 in kernel first: a new value would change that use too

// HOST: note: launch of rows: the block size is the constant kRows ({{[0-9:]+}}), which is also used at {{[0-9]+}}:22 in host function launch_all: a new value would change that use too

// DEVICE: note: launch of helped: the block size is the constant kHelp ({{[0-9:]+}}), which is also used at {{[0-9]+}}:{{[0-9]+}} in device function helper: a new value would change that use too

// COMPUTED: note: launch of warps: its __launch_bounds__(kWarps * 32) at {{[0-9:]+}} is computed from kWarps: change it by hand

// TPARAM: note: launch of tsum: the block size is the template parameter BLOCK of tsum (__launch_bounds__(BLOCK) at {{[0-9:]+}}): a new block size needs a new instantiation of the template; give template-arg=0 with block=<threads> to make it (the harness then runs it in place of 'tsum<256>')

// TARG: note: launch of tfill: the launch at {{[0-9:]+}} (tfill<128>) passes its block size as a template argument too: a new block size needs a new instantiation of the template; give template-arg=0 with block=<threads> to make it (the harness then runs it in place of 'tfill<128>')

// TDEP: note: launch of cfgk: the block size depends on the template parameters of cfgk (__launch_bounds__(Cfg::kBlock) at {{[0-9:]+}}): a new block size needs a new instantiation of the template that the launch rewrite cannot name (the block size is not one template argument); change it by hand

// TCONST: note: launch of tconst: the launch at {{[0-9:]+}} (tconst<kTBlock>) passes its block size as a template argument too: a new block size needs a new instantiation of the template; give template-arg=0 with block=<threads> to make it (the harness then runs it in place of 'tconst<64>')

// MACRO: note: launch of macro: the block size is the macro MACRO_BLOCK, defined ({{[0-9]+}}:9), which is also used at {{[0-9]+}}:22, outside kernel macro and its launches: a new value would change that use too; give the kernel a macro of its own, or change the block size by hand

// WARN: warning: the launch at {{[0-9:]+}} passes its block as `kTwice` (from kTwice): change it by hand, as the launch contract in the plan and the report says
// WARN: twice<<<(n + kTwice - 1) / kTwice, kTwice>>>(out, n);

// LIST: launch first: does not apply: launch of first: nothing to change: {{.*}}; a new block size would be refused: the block size is the constant kShared ({{[0-9:]+}}), which is also used at {{[0-9:]+}} in host function launch_all
// LIST: launch tsum: does not apply: launch of tsum: nothing to change: {{.*}}; a new block size would be refused: the block size is the template parameter BLOCK of tsum
