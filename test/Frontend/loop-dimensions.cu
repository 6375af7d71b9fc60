// Loop classes in every dimension: the model and vectorize-loads agree that
// a threadIdx.y loop stepping by blockDim.y is a block-stride loop over y
// (both take it from LoopForm), and a grid-stride loop needs blockDim and
// gridDim of one dimension. "dim" names the dimension; null when plain.
// REQUIRES: cuda-headers
// RUN: %astra-opt --print-kernel-model %s | FileCheck %s
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=VEC

__global__ void rows(float *out, const float *in, int n) {
  for (int i = threadIdx.y; i < n; i += blockDim.y)
    out[i] = in[i]; __syncthreads(); // the loops write the same elements
  for (int i = blockIdx.z * blockDim.z + threadIdx.z; i < n;
       i += blockDim.z * gridDim.z)
    out[i] = in[i]; __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.y * gridDim.x)
    out[i] = in[i];
  do {
    n -= 1;
  } while (n > 0);
}

// CHECK:      "loops": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "bound": "n",
// CHECK-NEXT:     "class": "block-stride",
// CHECK:          "dim": "y",
// CHECK:          "id": "rows:L0",
// CHECK-NEXT:     "induction_var": "i",
// CHECK-NEXT:     "init": "threadIdx.y",
// CHECK-NEXT:     "kind": "for",
// CHECK:          "class": "grid-stride",
// CHECK:          "dim": "z",
// CHECK:          "id": "rows:L1",
// CHECK:          "class": "plain",
// CHECK:          "dim": null,
// CHECK:          "id": "rows:L2",
// CHECK:          "class": "plain",
// CHECK:          "dim": null,
// CHECK:          "id": "rows:L3",
// CHECK:          "kind": "do",

// VEC: loop-dimensions.cu:10:3: vectorize-loads rows rows:L0: applies:
// VEC: loop-dimensions.cu:12:3: vectorize-loads rows rows:L1: applies:
