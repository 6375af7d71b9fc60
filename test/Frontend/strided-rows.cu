// Strided rows: a runtime stride (`x[c * stride]`), a constant stride, a
// row-major 2-D walk with nested loops and constant trip counts, and an index
// that changes inside the loop (unknown stride).
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s

__global__ void colsum(float *out, const float *x, int rows, int cols,
                       int stride, int ld) {
  int r = blockIdx.x;
  float acc = 0.f;
  for (int c = 0; c < cols; ++c)
    acc += x[r + c * stride];
  for (int k = 0; k < 4; ++k) {
    for (int j = 0; j <= 6; j += 2)
      out[r * ld + k * 8 + j] = x[2 * j + 1];
  }
  int idx = 0;
  for (int t = 10; t > 0; --t) {
    out[idx] = acc;
    idx += ld;
  }
  for (int c = threadIdx.x; c < cols; c += blockDim.x * gridDim.x) {
    const int col = c;
    out[(size_t)r * ld + col] = x[col * ld];
  }
}

// CHECK:      "accesses": [
// CHECK-NEXT:   {
// CHECK:          "index": "r + c * stride",
// CHECK-NEXT:     "kind": "load",
// CHECK-NEXT:     "line": 11,
// CHECK-NEXT:     "loop": "colsum:L0",
// CHECK-NEXT:     "pointer": "x",
// CHECK-NEXT:     "runtime_stride": "stride",
// CHECK-NEXT:     "text": "x[r + c * stride]",
// CHECK-NEXT:     "unit_stride": false
// The innermost loop's induction variable is j.
// CHECK:          "index": "r * ld + k * 8 + j",
// CHECK-NEXT:     "kind": "store",
// CHECK-NEXT:     "line": 14,
// CHECK-NEXT:     "loop": "colsum:L2",
// CHECK-NEXT:     "pointer": "out",
// CHECK-NEXT:     "text": "out[r * ld + k * 8 + j]",
// CHECK-NEXT:     "unit_stride": true
// CHECK:          "index": "2 * j + 1",
// CHECK-NEXT:     "kind": "load",
// CHECK-NEXT:     "line": 14,
// CHECK-NEXT:     "loop": "colsum:L2",
// CHECK-NEXT:     "pointer": "x",
// CHECK-NEXT:     "stride": 2,
// idx changes in the loop: the stride is unknown.
// CHECK:          "index": "idx",
// CHECK-NEXT:     "kind": "store",
// CHECK-NEXT:     "line": 18,
// CHECK-NEXT:     "loop": "colsum:L3",
// CHECK-NEXT:     "pointer": "out",
// CHECK-NEXT:     "text": "out[idx]",
// CHECK-NEXT:     "unit_stride": false
// CHECK-NEXT:   },
// Locals are followed to their initial value.
// CHECK:          "index": "(size_t)r * ld + col",
// CHECK-NEXT:     "kind": "store",
// CHECK:          "loop": "colsum:L4",
// CHECK:          "unit_stride": true
// CHECK:          "index": "col * ld",
// CHECK-NEXT:     "kind": "load",
// CHECK:          "runtime_stride": "ld",

// CHECK:      "loops": [
// CHECK:          "id": "colsum:L0",
// CHECK-NEXT:     "induction_var": "c",
// CHECK-NEXT:     "init": "0",
// CHECK:          "step": "1",
// CHECK-NEXT:     "trip_count": null
// CHECK:          "depth": 0,
// CHECK:          "id": "colsum:L1",
// CHECK:          "parent": null,
// CHECK-NEXT:     "step": "1",
// CHECK-NEXT:     "trip_count": 4
// CHECK:          "compare": "<=",
// CHECK:          "depth": 1,
// CHECK:          "id": "colsum:L2",
// CHECK:          "parent": "colsum:L1",
// CHECK-NEXT:     "step": "2",
// CHECK-NEXT:     "trip_count": 4
// CHECK:          "compare": ">",
// CHECK:          "id": "colsum:L3",
// CHECK:          "step": "-1",
// CHECK-NEXT:     "trip_count": 10
// CHECK:          "class": "grid-stride",
// CHECK:          "id": "colsum:L4",
