// The launch rewrite's template-arg on the forms explicit instantiations and
// launches take in real files (found on the file's tokens, not at Clang's
// point of instantiation, which is the first use): an explicit
// instantiation after a launch of the same instantiation, one in a
// namespace whose name starts with "template", one with a `;` in a comment,
// two whose copies would be the same instantiation (one copy), an `extern
// template` declaration (not copied); a launch in a launcher template is
// left with a warning. Refused: a launcher that picks between
// instantiations by size, an explicit instantiation that writes the argument
// as a constant, one written by a macro.
// REQUIRES: cuda-headers
//
// RUN: %astra-opt --apply=launch:kernel=after,block=512,template-arg=0 %s | FileCheck %s --check-prefix=AFTER
// RUN: %astra-opt --apply=launch:kernel=spaced,block=512,template-arg=0 %s | FileCheck %s --check-prefix=SPACED
// RUN: %astra-opt --apply=launch:kernel=commented,block=512,template-arg=0 %s | FileCheck %s --check-prefix=COMMENT
// RUN: %astra-opt --apply=launch:kernel=twice,block=512,template-arg=1 %s | FileCheck %s --check-prefix=TWICE
// RUN: %astra-opt --apply=launch:kernel=twice,block=512,template-arg=1 --emit-ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=TWICE-PTX < %t.ptx
// RUN: %astra-opt --apply=launch:kernel=launched,block=512,template-arg=0 %s 2>&1 >/dev/null | FileCheck %s --check-prefix=LAUNCHER
// RUN: not %astra-opt --apply=launch:kernel=dispatch,block=512,template-arg=0 %s 2>&1 | FileCheck %s --check-prefix=DISPATCH
// RUN: not %astra-opt --apply=launch:kernel=named,block=512,template-arg=0 %s 2>&1 | FileCheck %s --check-prefix=NAMED
// RUN: not %astra-opt --apply=launch:kernel=macro,block=512,template-arg=0 %s 2>&1 | FileCheck %s --check-prefix=MACRO

#include <cuda_runtime.h>

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) after(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 1.0f;
}

void run_after(float *out, int n) {
  after<256><<<(n + 255) / 256, 256>>>(out, n);
}

template __global__ void after<256>(float *, int);

namespace templates {
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) spaced(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 2.0f;
}
} // namespace templates
template __global__ void templates::spaced<256>(float *, int);

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) commented(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 3.0f;
}
template __global__ void commented<256>(float * /* out; n */, int);

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) twice(T *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = T(4);
}
extern template __global__ void twice<double, 256>(double *, int);
template __global__ void twice<float, 128>(float *, int);
template __global__ void twice<float, 256>(float *out, int n);

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) dispatch(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 5.0f;
}

void run_dispatch(float *out, int n) {
  if (n < 4096)
    dispatch<128><<<(n + 127) / 128, 128>>>(out, n);
  else
    dispatch<256><<<(n + 255) / 256, 256>>>(out, n);
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) launched(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 9.0f;
}
template <int B> void run_launched(float *out, int n) {
  launched<B><<<(n + B - 1) / B, B>>>(out, n);
}
template void run_launched<256>(float *, int);
template __global__ void launched<256>(float *, int);

constexpr int kNamed = 256;
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) named(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 6.0f;
}
template __global__ void named<kNamed>(float *, int);

#define INSTANTIATE_MACRO(B) template __global__ void macro<B>(float *, int);
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) macro(float *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = 7.0f;
}
INSTANTIATE_MACRO(256)

// AFTER: after<512><<<(n + 255) / 256, 512>>>(out, n);
// AFTER: {{^}}template __global__ void after<256>(float *, int);
// AFTER-NEXT: {{^}}template __global__ void after<512>(float *, int);

// SPACED: {{^}}template __global__ void templates::spaced<256>(float *, int);
// SPACED-NEXT: {{^}}template __global__ void templates::spaced<512>(float *, int);

// COMMENT: {{^}}template __global__ void commented<256>(float * /* out; n */, int);
// COMMENT-NEXT: {{^}}template __global__ void commented<512>(float * /* out; n */, int);

// TWICE: {{^}}extern template __global__ void twice<double, 256>(double *, int);
// TWICE-NEXT: {{^}}template __global__ void twice<float, 128>(float *, int);
// TWICE-NEXT: {{^}}template __global__ void twice<float, 512>(float *, int);
// TWICE-NEXT: {{^}}template __global__ void twice<float, 256>(float *out, int n);
// TWICE-NOT: {{^}}template __global__ void twice<
// TWICE-PTX: .entry _Z5twiceIfLi512EEvPT_i(

// LAUNCHER: warning: the launch at {{[0-9:]+}} is in a template, whose arguments decide its launch: change it by hand, as the launch contract in the plan and the report says

// DISPATCH: the file launches dispatch with template argument 0 = 128 and 256 (at {{[0-9:]+}}): a choice between instantiations; change the one you mean by hand
// NAMED: the explicit instantiation of named at {{[0-9:]+}} writes template argument 0 as `kNamed`: instantiate the new block size by hand
// MACRO: an explicit instantiation of macro is not written out in the file (a macro or a header): instantiate the new block size by hand
