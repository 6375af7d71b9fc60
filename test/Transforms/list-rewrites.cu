// --list-rewrites: every rewrite, every site, applies or why not; --json.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s | FileCheck %s
// RUN: %astra-opt --list-rewrites --json %s -o %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: not %astra-opt --json %s 2>&1 | FileCheck %s --check-prefix=NOLIST

__global__ void scale(float *out, const float *in, float s, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = in[i] / s;
}

// CHECK:      list-rewrites.cu:9:3: unroll scale scale:L0: applies: #pragma unroll 4
// CHECK-NEXT: list-rewrites.cu:9:3: vectorize-loads scale scale:L0: applies: 16-byte accesses
// CHECK:      list-rewrites.cu:8:30: read-only-cache scale: does not apply: 'out': not read-only: stored through at 10:5
// CHECK-NEXT: list-rewrites.cu:8:48: read-only-cache scale: does not apply: 'in': may alias 'out'
// CHECK-NEXT: list-rewrites.cu:10:14: fast-math scale scale:L0: applies: x/y -> __fdividef(x, y)
// CHECK-NEXT: list-rewrites.cu:10:14: hoist-invariant scale scale:L0: does not apply: 'in[i] / s' is not hoisted: 'in[i]' reads memory that may change

// JSON:      "applies": true,
// JSON-NEXT: "col": 3,
// JSON-NEXT: "detail": "#pragma unroll 4",
// JSON:      "rewrite": "unroll"
// JSON:      "rewrite": "vectorize-loads"
// JSON:      "applies": true,
// JSON-NEXT: "col": 14,
// JSON-NEXT: "detail": "x/y -> __fdividef(x, y)",
// JSON-NEXT: "file": "{{.*}}list-rewrites.cu",
// JSON-NEXT: "kernel": "scale",
// JSON-NEXT: "line": 10,
// JSON-NEXT: "loop": "scale:L0",
// JSON-NEXT: "rewrite": "fast-math"

// NOLIST: error: --json needs --list-rewrites
