// read-only-cache no longer says "no pointer parameter is written" for the
// kernels a review found (/work/review-unroll, cases 11-14): an atomic
// through a pointer in a struct argument, a store inside a device function,
// stores to a __device__ array, and a const pointer that the callee casts
// and writes through. A kernel that only writes local and shared memory,
// and calls a function that only computes, still gets the rewrite.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s
// RUN: %astra-opt --list-rewrites --json %s 2>&1 | FileCheck %s --check-prefix=JSON

// CHECK-DAG: read-only-cache viaatomic: does not apply: 'in': may alias memory the kernel writes (a call of 'atomicAdd' through a pointer this rewrite does not track at {{[0-9]+}}:5)
// CHECK-DAG: read-only-cache viacall: does not apply: 'in': may alias memory the kernel writes (a call of 'put' through a pointer this rewrite does not track at {{[0-9]+}}:5)
// CHECK-DAG: read-only-cache viaglobal: does not apply: 'in': may alias memory the kernel writes (a store through a pointer this rewrite does not track at {{[0-9]+}}:5)
// CHECK-DAG: read-only-cache viaconstcall: does not apply: 'dst': not read-only: passed to 'sneaky', which casts const away and writes through it ({{[0-9]+}}:58) at {{[0-9]+}}:5
// CHECK-DAG: read-only-cache viaconstcall: does not apply: 'in': may alias 'dst', which the kernel writes
// CHECK-DAG: read-only-cache localonly: applies: 'in': 1 load(s) -> __ldg through 'const float *__restrict__ in_ro' (no pointer parameter is written)
// With assume-noalias=1 the four kernels that write other memory carry the
// assumption (before, only viaconstcall did).
// JSON-COUNT-4: "assumes": "'in' overlaps no buffer the kernel writes"

struct Args { float *out; int n; };
__global__ void viaatomic(const float *in, Args a) {
  for (int j = 0; j + 1 < a.n; ++j)
    atomicAdd(a.out + j + 1, in[j]);
}

__device__ void put(float *o, int k, float v) { o[k] = v; }
__global__ void viacall(const float *in, Args a) {
  for (int j = 0; j + 1 < a.n; ++j)
    put(a.out, j + 1, in[j] + in[j + 1]);
}

__device__ float gbuf[1024];
__global__ void viaglobal(const float *in, int n) {
  for (int j = 0; j + 1 < n; ++j)
    gbuf[j + 1] = in[j] + in[j + 1];
}

__device__ void sneaky(const float *p, int k, float v) { const_cast<float *>(p)[k] = v; }
__global__ void viaconstcall(const float *in, const float *dst, int n) {
  for (int j = 0; j + 1 < n; ++j)
    sneaky(dst, j + 1, in[j] + in[j + 1]);
}

__device__ float twice(float v) { return 2.0f * v; }
__global__ void localonly(const float *in, int n) {
  __shared__ float s[64];
  float t[4];
  for (int j = 0; j < 4 && j < n; ++j)
    t[j] = twice(in[j]);
  s[threadIdx.x % 64] = t[0] + t[3];
}
