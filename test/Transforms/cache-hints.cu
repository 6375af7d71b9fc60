// cache-hints: loads of data used once -> __ldcs, stores -> __stcs; which
// accesses are data used once, and why the others are not; the packs that
// vectorize-loads writes; templates (every instantiation scanned); the PTX.
// REQUIRES: cuda-headers, libdevice
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s --check-prefix=LIST
// __ldcs is an asm that the compiler takes to read memory nothing writes
// (like __ldg): loads are hinted only where no write of the kernel can meet
// them, __restrict__ or assume-noalias=1 (the spec's noalias). Stores always.
// RUN: %astra-opt --apply=cache-hints %s -o %t.plain.cu
// RUN: grep -v '^//' %t.plain.cu | FileCheck %s --check-prefix=PLAIN
// RUN: %astra-opt --apply=cache-hints:assume-noalias=1 %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// One loop: only the second pass of the norm.
// RUN: %astra-opt --apply=cache-hints:loop=two_pass:L1,assume-noalias=1 %s -o %t.loop.cu
// RUN: grep -v '^//' %t.loop.cu | FileCheck %s --check-prefix=LOOP
// After vectorize-loads: the 16-byte packs of the grid-stride loop.
// RUN: %astra-opt --apply=vectorize-loads:loop=scatter:L0 --apply=cache-hints:loop=scatter:L0,assume-noalias=1 %s -o %t.vec.cu
// RUN: grep -v '^//' %t.vec.cu | FileCheck %s --check-prefix=VEC
// RUN: %astra-opt --emit-ptx %t.vec.cu -o - | FileCheck %s --check-prefix=VECPTX
// RUN: not %astra-opt --apply=cache-hints:kernel=shared_only %s 2>&1 | FileCheck %s --check-prefix=NONE

#include <cuda_fp16.h>
#include <stdint.h>

// A scatter of messages: the messages and their ids stream; the atomics to
// out are what should stay in L2.
// CHECK-LABEL: __global__ void scatter(
// CHECK:      atomicAdd(&out[__ldcs(&index[e]) * F + f], __ldcs(&src[i]));
// PLAIN-LABEL: __global__ void scatter(
// PLAIN:      atomicAdd(&out[index[e] * F + f], src[i]);
// LIST-DAG: cache-hints scatter scatter:L0: does not apply: no access to stream: 'index[e]': 'index' may alias 'out', which the kernel writes (const does not rule out aliasing); declare it __restrict__ or pass assume-noalias=1 when the buffers never overlap
// LIST-DAG: cache-hints:assume-noalias=1 scatter scatter:L0: applies: 2 load(s) of 'index', 'src' -> __ldcs (streaming: evict first from L2) (assume-noalias=1)
__global__ void scatter(float *out, const int64_t *index, const float *src,
                        int64_t n, int F) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t e = i / F;
    int64_t f = i % F;
    atomicAdd(&out[index[e] * F + f], src[i]);
  }
}

// Two passes over a row through a local pointer: the first read stays
// cached for the second; the second streams, and so does the store (a
// class type, __half, assigned a __half). gamma is the same in every block.
// CHECK-LABEL: __global__ void two_pass(
// CHECK:        s += __half2float(x[i]);
// CHECK:        __stcs(&y[i], __float2half(__half2float(__ldcs(&x[i])) * s * gamma[i]));
// LOOP-LABEL: __global__ void two_pass(
// LOOP:         s += __half2float(x[i]);
// LOOP:         __stcs(&y[i], __float2half(__half2float(__ldcs(&x[i])) * s * gamma[i]));
// LIST-DAG: cache-hints two_pass two_pass:L0: does not apply: no access to stream: 'x[i]': 'in' is read again later, at {{[0-9]+:[0-9]+}}: only its last read streams
// PLAIN-LABEL: __global__ void two_pass(
// PLAIN:        __stcs(&y[i], __float2half(__half2float(x[i]) * s * gamma[i]));
// LIST-DAG: cache-hints two_pass two_pass:L1: applies: 1 store(s) to 'out' -> __stcs (streaming: evict first from L2)
// LIST-DAG: cache-hints:assume-noalias=1 two_pass two_pass:L1: applies: 1 load(s) of 'in' -> __ldcs, 1 store(s) to 'out' -> __stcs (streaming: evict first from L2) (assume-noalias=1)
__global__ void two_pass(__half *out, const __half *in, const float *gamma,
                         int d) {
  const __half *x = in + (int64_t)blockIdx.x * d;
  __half *y = out + (int64_t)blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    s += __half2float(x[i]);
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    y[i] = __float2half(__half2float(x[i]) * s * gamma[i]);
}

// A gather: the rows of x may be read again (a shared neighbour), and so
// may what an index read from memory addresses (the column ids after
// `begin = ptr[r]`): they keep the default policy. The row's bounds, which
// every thread of the block reads, do not stream either; the output does.
// CHECK-LABEL: __global__ void gather(
// CHECK:        const int begin = ptr[r];
// CHECK:        for (int e = begin; e < ptr[r + 1]; ++e)
// CHECK-NEXT:     acc += x[(int64_t)col[e] * F + f];
// CHECK-NEXT:   __stcs(&out[(int64_t)r * F + f], acc);
// LIST-DAG: cache-hints gather: does not apply: no access to stream: 'ptr[r]': its address does not depend on threadIdx: every thread of the block touches it
// LIST-DAG: cache-hints gather gather:L0: applies: 1 store(s) to 'out' -> __stcs
__global__ void gather(float *out, const int *ptr, const int *col,
                       const float *x, int F) {
  const int r = blockIdx.x;
  const int begin = ptr[r];
  for (int f = threadIdx.x; f < F; f += blockDim.x) {
    float acc = 0.0f;
    for (int e = begin; e < ptr[r + 1]; ++e)
      acc += x[(int64_t)col[e] * F + f];
    out[(int64_t)r * F + f] = acc;
  }
}

// In place (read and written): nothing streams. A compound assignment is no
// plain store either.
// CHECK-LABEL: __global__ void in_place(
// CHECK:        p[i] = p[i] * 2.0f;
// CHECK:        q[i] += 1.0f;
// LIST-DAG: cache-hints in_place: does not apply: no access to stream: 'p[i] = p[i] * 2.0f': 'p' is also read or used otherwise in the kernel: its data is used again
__global__ void in_place(float *p, float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i] = p[i] * 2.0f;
    q[i] += 1.0f;
  }
}

// A template: hinted in each of its instantiations, so hinted in the file.
// Its input is __restrict__: loads are hinted without assume-noalias.
// CHECK-LABEL: __global__ void copy_t(
// CHECK:        __stcs(&out[i], __ldcs(&in[i]));
// PLAIN-LABEL: __global__ void copy_t(
// PLAIN:        __stcs(&out[i], __ldcs(&in[i]));
// LIST-DAG: cache-hints copy_t: applies: 1 load(s) of 'in' -> __ldcs, 1 store(s) to 'out' -> __stcs (streaming: evict first from L2){{$}}
template <typename T>
__global__ void copy_t(T *out, const T *__restrict__ in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
template __global__ void copy_t<float>(float *, const float *__restrict__,
                                       int);
template __global__ void copy_t<__half>(__half *, const __half *__restrict__,
                                        int);

// Loads that a write of the kernel may meet, not seen as a store of the
// parameter (an atomic through `buf + i`): the compiler could merge the two
// hinted loads across it, so neither is hinted, assume-noalias=1 or not.
// CHECK-LABEL: __global__ void read_modify_read(
// CHECK:        float a = buf[i];
// CHECK:        float b = buf[i];
// LIST-DAG: cache-hints:assume-noalias=1 read_modify_read: applies: 1 store(s) to 'res' -> __stcs (streaming: evict first from L2); 2 other access(es) left as they are, the first 'buf[i]': 'buf' points to non-const data: the kernel may write it
__global__ void read_modify_read(float *buf, float *res) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = buf[i];
  atomicAdd(buf + i, 1.0f);
  float b = buf[i];
  res[i] = b - a;
}

// A const pointer a device function of the file writes through after a
// const_cast: not hinted either.
// CHECK-LABEL: __global__ void const_cast_write(
// CHECK:        float a = in[i];
// LIST-DAG: cache-hints:assume-noalias=1 const_cast_write: applies: 1 store(s) to 'res' -> __stcs (streaming: evict first from L2); 2 other access(es) left as they are, the first 'in[i]': 'in' is passed to 'poke', which may write through it
__device__ void poke(const float *p) { const_cast<float *>(p)[0] = 1.0f; }
__global__ void const_cast_write(const float *in, float *res) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = in[i];
  poke(in + i);
  float b = in[i];
  res[i] = b - a;
}

// Side effects the intrinsic's argument order would reorder, a store in a
// macro's expansion, a preprocessor conditional inside a store.
// LIST-DAG: cache-hints order: does not apply: no access to stream: 'out[j++] = in[j] + j': its element and value have side effects on each other
// LIST-DAG: cache-hints in_macro: does not apply: no access to stream: 'STORE(out + i) = 1.0f': written in a macro's expansion or argument
// LIST-DAG: cache-hints directive: does not apply: no access to stream: {{.*}}: a preprocessor conditional lies inside it
// CHECK-LABEL: __global__ void order(
// CHECK:        out[j++] = __ldcs(&in[j]) + j;
__global__ void order(float *out, const float *in) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  out[j++] = in[j] + j;
}
#define STORE(p) *(p)
__global__ void in_macro(float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  STORE(out + i) = 1.0f;
}
__global__ void directive(float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] =
#if 1
      2.0f;
#else
      3.0f;
#endif
}

// Shared memory, and a store through a class's assignment from another type
// (__half's operator=(float)): no hint.
// LIST-DAG: cache-hints shared_only: does not apply: no access to stream: 'h[i]': neither a plain read of the element nor an assignment to it on its own
// NONE: error: rewrite 'cache-hints' does not apply to kernel shared_only
__global__ void shared_only(__half *h, const float *g, int n) {
  __shared__ float tile[256];
  tile[threadIdx.x] = 1.0f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = tile[threadIdx.x ^ 1];
  if (i < n)
    h[i] = v;
}

// A volatile element keeps its plain access.
// CHECK-LABEL: __global__ void flag(
// CHECK:        f[blockIdx.x * blockDim.x + threadIdx.x] = 1;
// LIST-DAG: cache-hints flag: does not apply: no access to stream: 'f[blockIdx.x * blockDim.x + threadIdx.x] = 1': a volatile access: the hint's intrinsic would drop volatile
__global__ void flag(volatile int *f) { f[blockIdx.x * blockDim.x + threadIdx.x] = 1; }

// VEC: srcVec.u = __ldcs(reinterpret_cast<const float4 *>(&src[i]));
// VEC: "l"(&out[__ldcs(&index[e]) * F + f])

// PTX-LABEL: .entry _Z7scatter
// PTX: ld.global.cs
// PTX-LABEL: .entry _Z8two_pass
// PTX: st.global.cs.b16
// VECPTX: ld.global.cs.v4
