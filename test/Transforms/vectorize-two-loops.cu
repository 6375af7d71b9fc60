// vectorize-loads on the second of two row loops, then on the first: the
// packs the first rewrite wrote (`aVec.v[lane]`, a local union's member
// array) are the thread's own memory, and its 16-byte loads
// (`*reinterpret_cast<const uint4 *>(&w[j])`) do not write `w`, so the other
// loop, which shares only the read-only `w` with it, still applies
// (rotary_embedding's two loops; before, both counted as writes of unknown
// memory and the second step was refused). Still refused: a write through a
// const address cast back (`const_cast<float *>(p)[1]`) and through a
// local object's pointer member (`r.p[...]`).
// REQUIRES: cuda-headers
// RUN: %astra-opt --apply=vectorize-loads:loop=two_rows:L1 %s -o %t.1.cu
// RUN: %astra-opt --list-rewrites %t.1.cu 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: %astra-opt --apply=vectorize-loads:loop=two_rows:L1 --apply=vectorize-loads:loop=two_rows:L0 --apply=vectorize-loads:loop=two_rows_f:L1 --apply=vectorize-loads:loop=two_rows_f:L0 %s -o %t.2.cu
// RUN: grep -c "^ *// astra-opt vectorize-loads: 16-byte" %t.2.cu | FileCheck %s --check-prefix=COUNT
// RUN: %astra-opt --emit-ptx %t.2.cu -o %t.2.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.2.ptx
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s --check-prefix=REFUSE

#include <cuda_fp16.h>
#include <stdint.h>

template <typename T>
__global__ void two_rows(T *a, T *b, const T *w, int n) {
  const int64_t row = blockIdx.x;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    a[row * n + i] = static_cast<T>(static_cast<float>(a[row * n + i]) *
                                    static_cast<float>(w[i]));
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    b[row * n + i] = static_cast<T>(static_cast<float>(b[row * n + i]) *
                                    static_cast<float>(w[i]));
}
template __global__ void two_rows<__half>(__half *, __half *, const __half *,
                                          int);

__global__ void two_rows_f(float *a, float *b, const float *w, int n) {
  const int64_t row = blockIdx.x;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    a[row * n + i] = a[row * n + i] * w[i];
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    b[row * n + i] = b[row * n + i] * w[i];
}
// AFTER: vectorize-loads two_rows two_rows:L0: applies:
// COUNT: 4
// Both loops of each kernel store 16-byte packs:
// PTX-LABEL: .entry _Z8two_rowsI6__halfEvPT_S2_PKS1_i(
// PTX-COUNT-2: st.global.v4.b32
// PTX-LABEL: .entry _Z10two_rows_fPfS_PKfi(
// PTX-COUNT-2: st.global.v4.b32
// PTX-LABEL: .entry _Z10poke_constPfPKfi(

__global__ void poke_const(float *a, const float *w, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    a[i] = a[i] * w[i];
  if (threadIdx.x == 0) {
    const float *p = &w[0];
    const_cast<float *>(p)[1] = 0.0f;
  }
}
// REFUSE-DAG: vectorize-loads poke_const poke_const:L0: does not apply: loop poke_const:L0: 'w' is accessed by the loop and, with no barrier between them, by another statement

struct Ref {
  float *p;
};
__global__ void via_member(float *a, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    a[i] = a[i] + 1.0f;
  Ref r{a};
  r.p[threadIdx.x] = 0.0f;
}
// REFUSE-DAG: vectorize-loads via_member via_member:L0: does not apply: loop via_member:L0: {{.*}}with no barrier between them, by another statement
