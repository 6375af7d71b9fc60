// read-only-cache: a refused parameter's reason names the use it could not
// follow and the callee it was passed to, also when the call is indirect.
// RUN: %astra-opt --list-rewrites %s | FileCheck %s

__device__ void bump(float &x) { x += 1.0f; }

template <typename F>
__global__ void uses(float *out, float *viaRef, float *viaCond, float *viaFn,
                     F f, int n, bool c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  bump(viaRef[i]);
  float *p = c ? viaCond : out;
  out[i] = p[i] + f(viaFn);
}

// CHECK: read-only-cache uses: does not apply: 'viaRef': not read-only: the element 'viaRef[i]' is used in 'bump(viaRef[i])' (a call), which this rewrite cannot classify as a load or a store at 13:8
// CHECK: read-only-cache uses: does not apply: 'viaCond': not read-only: the pointer is used in 'c ? viaCond : out' (a ?: expression), which this rewrite does not follow (it cannot tell whether the data is written there) at 14:14
// CHECK: read-only-cache uses: does not apply: 'viaFn': not read-only: passed to 'f', an indirect or unresolved call whose parameters are not known, so it may write through it at 15:19
