// keep-original: a copy of a kernel as it is, `<k>_small`, right after it, for
// the launches below a plan's min-threads bound (launch:...,small-entry=1).
// The copy's parameter lines stay aligned with its longer name; a kernel
// template's explicit instantiations are copied after themselves (an
// `extern template` is not); `extern "C"` goes with the copy. In the PTX,
// both entries. Refusals: a template the file does not instantiate
// explicitly, a name already taken, a kernel kept twice; small-entry
// without the copy or without the bound. Not enumerated for the search
// (--list-options), listed by --list-rewrites.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=keep-original:kernel=scale %s | FileCheck %s --check-prefix=SCALE
// RUN: %astra-opt --apply=keep-original:kernel=scale --emit-ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %astra-opt --apply=keep-original:kernel=tadd %s | FileCheck %s --check-prefix=TADD
// RUN: %astra-opt --apply=keep-original:kernel=cfill %s | FileCheck %s --check-prefix=CFILL
// RUN: not %astra-opt --apply=keep-original:kernel=timplicit %s 2>&1 | FileCheck %s --check-prefix=IMPLICIT
// RUN: not %astra-opt --apply=keep-original:kernel=taken %s 2>&1 | FileCheck %s --check-prefix=TAKEN
// RUN: not %astra-opt --apply=keep-original:kernel=outside %s 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: not %astra-opt --apply=keep-original:kernel=bounded %s 2>&1 | FileCheck %s --check-prefix=BOUNDED
// RUN: not %astra-opt --apply=keep-original:kernel=twice %s 2>&1 | FileCheck %s --check-prefix=TWONS
// RUN: %astra-opt --apply=keep-original:kernel=scale %s -o %t.once.cu
// RUN: not %astra-opt --apply=keep-original:kernel=scale %t.once.cu 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: %astra-opt --list-options %s | FileCheck %s --check-prefix=OPTIONS
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=vectorize-loads:kernel=scale,any-grid=1 --apply=launch:kernel=scale,grid-x-div=4,min-threads=65536,small-entry=1 %t.once.cu -o %t.launch.cu 2>&1 | FileCheck %s --check-prefix=LAUNCH
// RUN: %astra-opt --list-rewrites %t.once.cu | FileCheck %s --check-prefix=COPY
// RUN: not %astra-opt --apply=vectorize-loads:kernel=scale,any-grid=1 --apply=launch:kernel=scale,grid-x-div=4,min-threads=65536,small-entry=1 %s 2>&1 | FileCheck %s --check-prefix=NOCOPY
// RUN: not %astra-opt --apply=vectorize-loads:kernel=scale,any-grid=1 --apply=launch:kernel=scale,grid-x-div=4,small-entry=1 %t.once.cu 2>&1 | FileCheck %s --check-prefix=NOBOUND
// A dispatch by size alone: the launch as the spec has it, the copy below
// the bound; without small-entry there is nothing to change.
// RUN: %astra-opt --list-rewrites --apply=vectorize-loads:kernel=scale --apply=launch:kernel=scale,min-threads=65536,small-entry=1 %t.once.cu 2>&1 | FileCheck %s --check-prefix=DISPATCH
// RUN: not %astra-opt --apply=launch:kernel=scale,min-threads=65536 %t.once.cu 2>&1 | FileCheck %s --check-prefix=NODISPATCH
// RUN: %astra-opt --apply=launch:kernel=scale,B=512,min-threads=65536,small-entry=1 %t.once.cu -o /dev/null 2>&1 | FileCheck %s --check-prefix=DISPATCH

#include <cuda_runtime.h>

__global__ void scale(float *out, const float *in,
                      float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = a * in[i];
  }
}

void launch_scale(float *out, const float *in, float a, int n) {
  scale<<<(n + 255) / 256, 256>>>(out, in, a, n);
}

// SCALE:      __global__ void scale(float *out, const float *in,
// SCALE-NEXT:                       float a, int n) {
// SCALE:      out[i] = a * in[i];
// SCALE-NEXT: }
// SCALE-NEXT: }
// SCALE-EMPTY:
// SCALE-NEXT: // astra-opt keep-original: scale as it was, for the launches below the plan's min-threads bound (small-entry)
// SCALE-NEXT: __global__ void scale_small(float *out, const float *in,
// SCALE-NEXT:                             float a, int n) {
// SCALE-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// SCALE-NEXT:   if (i < n) {
// SCALE-NEXT:     out[i] = a * in[i];
// SCALE-NEXT:   }
// SCALE-NEXT: }
// SCALE-EMPTY:
// SCALE-NEXT: void launch_scale(float *out, const float *in, float a, int n) {
// SCALE-NEXT:   scale<<<(n + 255) / 256, 256>>>(out, in, a, n);
// PTX-DAG: .entry _Z5scalePfPKffi(
// PTX-DAG: .entry _Z11scale_smallPfPKffi(

template <typename T>
__global__ void tadd(T *out, const T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] += x[i];
}
template __global__ void tadd<float>(float *, const float *, int);
extern template __global__ void tadd<double>(double *, const double *, int);
template __global__ void tadd<int>(int *, const int *,
                                   int);

// TADD:      // astra-opt keep-original: tadd as it was
// TADD-NEXT: template <typename T>
// TADD-NEXT: __global__ void tadd_small(T *out, const T *x, int n) {
// TADD:      template __global__ void tadd<float>(float *, const float *, int);
// TADD-NEXT: template __global__ void tadd_small<float>(float *, const float *, int);
// TADD-NEXT: extern template __global__ void tadd<double>(double *, const double *, int);
// TADD-NEXT: template __global__ void tadd<int>(int *, const int *,
// TADD-NEXT:                                    int);
// TADD-NEXT: template __global__ void tadd_small<int>(int *, const int *,
// TADD-NEXT:                                          int);
// TADD-NOT:  {{^}}template __global__ void tadd_small<double>

extern "C" __global__ void cfill(float *out, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = v;
}
// CFILL:      // astra-opt keep-original: cfill as it was
// CFILL-NEXT: extern "C" __global__ void cfill_small(float *out, float v, int n) {

template <typename T>
__global__ void timplicit(T *out, int n) {
  if (threadIdx.x < n)
    out[threadIdx.x] = T(0);
}
void launch_timplicit(float *out, int n) { timplicit<<<1, 32>>>(out, n); }
// IMPLICIT: note: timplicit is a template that the file does not instantiate explicitly (template __global__ void timplicit<...>(...);): the copy would have no instantiation to run

__global__ void taken(float *out) { out[0] = 1.0f; }
__device__ float taken_small;
// TAKEN: note: the name taken_small is already declared: the copy of taken would clash with it

// TWICE: note: the file keeps scale already (scale_small)

namespace ns {
__global__ void outside(float *out);
}
__global__ void ns::outside(float *out) { out[0] = 2.0f; }
// OUTSIDE: note: the kernel is defined out of line (ns::outside): the copy would need a declaration of its own there

__global__ void __launch_bounds__(64) bounded(float *out);
__global__ void bounded(float *out) { out[threadIdx.x] = 0.0f; }
// BOUNDED: note: an earlier declaration of bounded gives its __launch_bounds__, which the copy of the definition would not have

namespace a {
template <typename T> __global__ void twice(T *out) { out[0] = T(1); }
}
namespace b {
template <typename T> __global__ void twice(T *out) { out[0] = T(2); }
}
template __global__ void a::twice<float>(float *);
template __global__ void b::twice<int>(int *);
// TWONS: note: another kernel is named twice too (in another scope)

// OPTIONS-NOT: : keep-original
// LIST-DAG: keep-original scale: applies: a copy of scale as it is, scale_small, for the launches below the plan's min-threads bound (launch:...,small-entry=1)
// LIST-DAG: keep-original tadd: applies: a copy of tadd as it is, tadd_small (2 explicit instantiation(s) copied)

// LAUNCH: warning: the launch at {{.*}} changes its grid only from 65536 threads on (and below that launches scale_small): change it by hand, as the launch contract in the plan and the report says
// COPY-DAG: keep-original scale: does not apply: the file keeps scale already (scale_small)
// COPY-DAG: keep-original scale_small: does not apply: scale_small is the copy of scale that keep-original kept
// NOCOPY: note: launch of scale: small-entry=1 runs scale_small below the bound, which the file does not hold: apply keep-original:kernel=scale first in the plan
// DISPATCH: warning: the launch at {{.*}} runs scale at every size: below 65536 threads it must launch scale_small: change it by hand, as the launch contract in the plan and the report says
// NODISPATCH: note: launch of scale: nothing to change: {{.*}}, or min-threads with small-entry=1
// NOBOUND: note: launch of scale: small-entry=1 names what runs below the min-threads bound: give the bound
