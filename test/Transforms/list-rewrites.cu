// --list-rewrites: every rewrite, every parameter value a search tries, every
// site, applies or why not; --json.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s | FileCheck %s
// RUN: %astra-opt --list-rewrites --json %s -o %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: not %astra-opt --json %s 2>&1 | FileCheck %s --check-prefix=NOLIST
// RUN: not %astra-opt --list-rewrites --list-options %s 2>&1 | FileCheck %s --check-prefix=BOTH

__global__ void scale(float *out, const float *in, float s, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = in[i] / s;
}

// Default parameters first (bare name), then every other combination of the
// values a search tries, with the values that differ from the defaults.
// CHECK:      list-rewrites.cu:11:3: unroll scale scale:L0: applies: #pragma unroll 4
// CHECK-NEXT: list-rewrites.cu:11:3: unroll:factor=2 scale scale:L0: applies: #pragma unroll 2
// CHECK-NEXT: list-rewrites.cu:11:3: unroll:factor=8 scale scale:L0: applies: #pragma unroll 8
// CHECK-NEXT: list-rewrites.cu:11:3: unroll:factor=2,mode=manual scale scale:L0: applies: manual unroll by 2 with a remainder loop
// CHECK-NEXT: list-rewrites.cu:11:3: unroll:mode=manual scale scale:L0: applies: manual unroll by 4
// CHECK-NEXT: list-rewrites.cu:11:3: unroll:factor=8,mode=manual scale scale:L0: applies: manual unroll by 8
// CHECK-NEXT: list-rewrites.cu:11:3: vectorize-loads scale scale:L0: applies: 16-byte accesses
// CHECK-NEXT: list-rewrites.cu:11:3: vectorize-loads:width=8 scale scale:L0: applies: 8-byte accesses to 2 pointer offset(s), 2 elements per thread and step
// CHECK-NEXT: list-rewrites.cu:10:30: read-only-cache scale: does not apply: 'out': not read-only: stored through at 12:5
// CHECK-NEXT: list-rewrites.cu:10:48: read-only-cache scale: does not apply: 'in': may alias 'out'
// CHECK-NEXT: list-rewrites.cu:10:30: read-only-cache:assume-noalias=1 scale: does not apply: 'out': not read-only
// CHECK-NEXT: list-rewrites.cu:10:48: read-only-cache:assume-noalias=1 scale: applies: 'in': 1 load(s) -> __ldg
// CHECK-NEXT: list-rewrites.cu:12:5: cache-hints scale scale:L0: does not apply: no access to stream: 'out[i] = in[i] / s': its address does not depend on blockIdx
// CHECK-NEXT: list-rewrites.cu:12:5: cache-hints:assume-noalias=1 scale scale:L0: does not apply: no access to stream: 'out[i] = in[i] / s': its address does not depend on blockIdx
// CHECK-NEXT: list-rewrites.cu:12:14: fast-math scale scale:L0: applies: x/y -> __fdividef(x, y)
// CHECK-NEXT: list-rewrites.cu:12:14: hoist-invariant scale scale:L0: does not apply: 'in[i] / s' is not hoisted: 'in[i]' reads memory that may change
// CHECK-NEXT: list-rewrites.cu:11:3: register-cache scale scale:L0: does not apply: no later loop of the block runs over the same row (same n, same thread index)
// CHECK-NEXT: list-rewrites.cu:11:3: register-cache:packs=1 scale scale:L0: does not apply: no later loop
// CHECK-NEXT: list-rewrites.cu:11:3: register-cache:packs=2 scale scale:L0: does not apply: no later loop
// CHECK-NEXT: list-rewrites.cu:11:3: register-cache:packs=8 scale scale:L0: does not apply: no later loop{{.*}}
// CHECK-NEXT: list-rewrites.cu:10:17: coarsen scale: does not apply: coarsen of scale by 8: no shared-memory tree reduction
// CHECK-NEXT: list-rewrites.cu:10:17: coarsen:loads=packs scale: does not apply: coarsen of scale by 8: no shared-memory tree reduction
// CHECK-NEXT: list-rewrites.cu:10:17: fold-blocks scale: does not apply: fold-blocks of scale (blockIdx.y): it does not read blockIdx.y
// CHECK-NEXT: list-rewrites.cu:10:17: fold-blocks:dim=x scale: does not apply: fold-blocks of scale (blockIdx.x): it does not read blockIdx.x
// CHECK-NEXT: list-rewrites.cu:10:17: launch scale: does not apply: launch of scale: nothing to change: give a tunable variable of the spec (B=512), grid-x-div, block-x-div, fold-x, fold-y, block, or min-threads with small-entry=1
// CHECK-NEXT: list-rewrites.cu:10:17: keep-original scale: applies: a copy of scale as it is, scale_small, for the launches below the plan's min-threads bound (launch:...,small-entry=1)
// CHECK-NOT:  {{.}}

// JSON:      "applies": true,
// JSON-NEXT: "assumes": null,
// JSON-NEXT: "changes_rounding": false,
// JSON-NEXT: "col": 3,
// JSON-NEXT: "detail": "#pragma unroll 4",
// JSON:      "params": {
// JSON-NEXT:   "factor": "4",
// JSON-NEXT:   "mode": "pragma"
// JSON-NEXT: },
// JSON-NEXT: "reached_from": [],
// JSON-NEXT: "reassociates_float": false,
// JSON-NEXT: "rewrite": "unroll"
// JSON:      "rewrite": "vectorize-loads"
// JSON:      "assumes": "'in' overlaps no buffer the kernel writes",
// JSON:      "params": {
// JSON-NEXT:   "assume-noalias": "1"
// JSON-NEXT: },
// JSON-NEXT: "reached_from": [],
// JSON-NEXT: "reassociates_float": false,
// JSON-NEXT: "rewrite": "read-only-cache"
// JSON:      "applies": true,
// JSON-NEXT: "assumes": null,
// JSON-NEXT: "changes_rounding": true,
// JSON-NEXT: "col": 14,
// JSON-NEXT: "detail": "x/y -> __fdividef(x, y)",
// JSON-NEXT: "file": "{{.*}}list-rewrites.cu",
// JSON-NEXT: "function": null,
// JSON-NEXT: "kernel": "scale",
// JSON-NEXT: "line": 12,
// JSON-NEXT: "loop": "scale:L0",
// JSON:      "rewrite": "fast-math"

// NOLIST: error: --json needs --list-rewrites or --list-options
// BOTH: error: --list-rewrites and --list-options are exclusive
