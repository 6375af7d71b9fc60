// The launch rewrite on a kernel template whose block size is a template
// argument: `template-arg=N` with `block=` makes a new instantiation. An
// explicit instantiation is kept and a copy for the new block follows it (one
// per instantiated argument list, none where the file already has it); a
// launch that writes the argument gets the new value with its block;
// __launch_bounds__(BLOCK) and the shared array follow the argument (in the
// PTX, the new entry's .maxntid). A block carried by a constant passed as the
// argument changes at the constant. Refusals: the wrong argument, no
// block=, min-threads, a kernel whose block is not a template argument, an
// argument written as an expression.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=launch:kernel=tsum,B=512,block=512,template-arg=0 %s | FileCheck %s --check-prefix=TSUM
// RUN: %astra-opt --apply=launch:kernel=tsum,B=512,block=512,template-arg=0 --emit-ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %astra-opt --apply=launch:kernel=tscale,B=128,block=128,template-arg=1 %s | FileCheck %s --check-prefix=TSCALE
// RUN: %astra-opt --apply=launch:kernel=tfill,block=256,template-arg=0 %s | FileCheck %s --check-prefix=TFILL
// RUN: %astra-opt --apply=launch:kernel=tconst,block=64,template-arg=0 %s | FileCheck %s --check-prefix=TCONST
// RUN: not %astra-opt --apply=launch:kernel=tscale,B=128,block=128,template-arg=0 %s 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not %astra-opt --apply=launch:kernel=tsum,B=512,template-arg=0 %s 2>&1 | FileCheck %s --check-prefix=NOBLOCK
// RUN: not %astra-opt --apply=launch:kernel=tsum,B=512,block=512,template-arg=0,min-threads=4096 %s 2>&1 | FileCheck %s --check-prefix=MIN
// RUN: not %astra-opt --apply=launch:kernel=plain,B=512,block=512,template-arg=0 %s 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: not %astra-opt --apply=launch:kernel=texpr,block=128,template-arg=0 %s 2>&1 | FileCheck %s --check-prefix=EXPR
// RUN: not %astra-opt --apply=launch:kernel=tsum,B=512,block=512 %s 2>&1 | FileCheck %s --check-prefix=HINT

#include <cuda_runtime.h>

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

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) tscale(T *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = out[i] * T(2);
}
template __global__ void tscale<float, 256>(float *, int);
template __global__ void tscale<double, 256>(double *, int);
template __global__ void tscale<double, 128>(double *, int);

template <int BLOCK> __global__ void tfill(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 5.0f;
}

constexpr int kConstBlock = 128;
template <int BLOCK> __global__ void tconst(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 8.0f;
}

template <int BLOCK> __global__ void texpr(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 3.0f;
}

__global__ void plain(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 1.0f;
}

void launch_all(float *out, int n) {
  tfill<128><<<(n + 127) / 128, 128>>>(out, n);
  tconst<kConstBlock><<<(n + kConstBlock - 1) / kConstBlock, kConstBlock>>>(
      out, n);
  texpr<64 * 2><<<(n + 127) / 128, 128>>>(out, n);
  plain<<<(n + 255) / 256, 256>>>(out, n);
}

// TSUM: __global__ void __launch_bounds__(BLOCK) tsum(float *out, const float *in,
// TSUM: __shared__ float s[BLOCK];
// TSUM: template __global__ void tsum<256>(float *, const float *, int);
// TSUM-NEXT: template __global__ void tsum<512>(float *, const float *, int);
// TSUM-NOT: {{^}}template __global__ void tsum<512>

// PTX: .entry _Z4tsumILi512EEvPfPKfi(
// PTX: {{^}}.maxntid 512

// TSCALE: template __global__ void tscale<float, 256>(float *, int);
// TSCALE-NEXT: template __global__ void tscale<float, 128>(float *, int);
// TSCALE-NEXT: template __global__ void tscale<double, 256>(double *, int);
// TSCALE-NEXT: template __global__ void tscale<double, 128>(double *, int);
// TSCALE-NOT: {{^}}template __global__ void tscale<double, 128>

// TFILL: tfill<256><<<(n + 127) / 128, 256>>>(out, n);

// TCONST: constexpr int kConstBlock = 64;
// TCONST: tconst<kConstBlock><<<(n + kConstBlock - 1) / kConstBlock, kConstBlock>>>(

// WRONG: template-arg=0: the block size is template argument 1 of tscale
// NOBLOCK: template-arg=0 needs block=<threads per block>
// MIN: template-arg=0 cannot go with min-threads
// PLAIN: template-arg=0 names the template argument that is the block size, but the block size of plain is not shown to be one
// EXPR: the launch at {{[0-9:]+}} writes template argument 0 of texpr as `64 * 2`: change it to the new block size by hand
// HINT: the block size is the template parameter BLOCK of tsum (__launch_bounds__(BLOCK) at {{[0-9:]+}}): a new block size needs a new instantiation of the template; give template-arg=0 with block=<threads> to make it (the harness then runs it in place of 'tsum<256>')
