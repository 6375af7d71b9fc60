// hoist-invariant refuses the kernels a review found it rewrote wrongly
// (confirmed on the CPU emulation, /work/review-fold): a variable a lambda
// captures by reference (implicitly, `[&]`, or by name) may change wherever
// the lambda is called, and a goto may jump into the loop after the
// variable changed (the kernel's gotos are not followed: refused). A lambda
// capturing by value still lets the hoist apply. The listing no longer
// crashes on a lambda called with no arguments (matchUnary took `f()` for a
// unary operator).
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s
// RUN: %astra-opt --list-rewrites %s 2>&1 | grep " hoist-invariant " | grep -v by_value | FileCheck %s --check-prefix=NONE
// NONE-NOT: : applies
// RUN: %astra-opt --list-options %s > /dev/null
// RUN: %astra-opt --apply=vectorize-loads %s > /dev/null

#include <cuda_runtime.h>

// 01: `bump` changes t on each iteration.
__global__ void implicit_ref(float *out, const float *in, float t, int n) {
  auto bump = [&]() { t += 1.0f; };
  for (int i = 0; i < n; ++i) {
    out[i] = in[i] * expf(t);
    bump();
  }
}
// CHECK-DAG: hoist-invariant implicit_ref implicit_ref:L0: does not apply: 'expf(t)' is not hoisted: 't' is modified in the loop or has its address taken

__global__ void explicit_ref(float *out, const float *in, float t, int n) {
  auto bump = [&t]() { t *= 2.0f; };
  for (int i = 0; i < n; ++i) {
    out[i] = in[i] * expf(t);
    bump();
  }
}
// CHECK-DAG: hoist-invariant explicit_ref explicit_ref:L0: does not apply: 'expf(t)' is not hoisted: 't' is modified in the loop or has its address taken

__global__ void by_value(float *out, const float *in, float t, int n) {
  auto scaled = [=](float x) { return x * t; };
  for (int i = 0; i < n; ++i)
    out[i] = scaled(in[i]) * expf(t);
}
// CHECK-DAG: hoist-invariant by_value by_value:L0: applies: 'expf(t)' -> 'expf_hoisted', computed before by_value:L0

// 02: a goto into the loop body after t changed.
__global__ void goto_into(float *out, float t, int n) {
  int i = 0;
  while (i < n) {
  again:
    out[i] += expf(t);
    ++i;
  }
  if (t < 2.0f) {
    t += 1.0f;
    i = 0;
    goto again;
  }
}
// CHECK-DAG: hoist-invariant goto_into goto_into:L0: does not apply: 'expf(t)' is not hoisted: the kernel uses goto, whose jumps the check does not follow
