// vectorize-loads is not offered where its alignment guard can never hold:
// `a[i]` and `a[i + 1]` are 4 bytes apart and cannot both be 16-byte
// aligned. `a[i]` with `a[i + 4]` (16 bytes apart) can, and is offered. A
// block-partitioned float sum (combined by a tree) is offered and says it
// reassociates.
// RUN: %astra-opt --list-rewrites %s | FileCheck %s
// RUN: %astra-opt --list-rewrites --json %s | FileCheck %s --check-prefix=JSON
// RUN: not %astra-opt --apply=vectorize-loads:loop=pairs:L0 %s 2>&1 | FileCheck %s --check-prefix=APPLY

__global__ void pairs(float *out, const float *a, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = a[i] + a[i + 1];
}

__global__ void quads(float *out, const float *a, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = a[i] + a[i + 4];
}

__global__ void blocksum(float *out, const float *a, int n) {
  __shared__ float red[1024];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += a[i];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      red[threadIdx.x] += red[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = red[0];
}

// CHECK: vectorize-loads pairs pairs:L0: does not apply: loop pairs:L0: the alignment guard can never hold: 'a' and 'a + 1' are 4 bytes apart, so they cannot both be 16-byte aligned
// CHECK: vectorize-loads quads quads:L0: applies:
// CHECK: vectorize-loads blocksum blocksum:L0: applies: {{.*}}regroups a floating-point reduction [reassociates float arithmetic: results may differ in the last bits]
// CHECK: vectorize-loads:width=8 pairs pairs:L0: does not apply: loop pairs:L0: the alignment guard can never hold: 'a' and 'a + 1' are 4 bytes apart, so they cannot both be 8-byte aligned

// JSON:      "kernel": "blocksum",
// JSON:      "reassociates_float": true,
// JSON-NEXT: "rewrite": "vectorize-loads"

// APPLY: error: rewrite 'vectorize-loads' does not apply to loop pairs:L0
// APPLY: note: loop pairs:L0: the alignment guard can never hold
