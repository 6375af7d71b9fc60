// unroll (pragma mode) on a grid-stride loop, nested block-per-row loops, a
// per-thread kernel whose loop already has a pragma, and a loop that comes
// from a macro. Only the pragma lines are added.
// REQUIRES: cuda-headers
// RUN: %astra-opt --apply=unroll %s -o %t.cu
// RUN: grep -v '^//' %t.cu | FileCheck %s
// RUN: %astra-opt --emit-ptx %s | FileCheck %s --check-prefix=ORIG
// RUN: %astra-opt --emit-ptx %t.cu | FileCheck %s --check-prefix=PTX
// RUN: %astra-opt --apply=unroll:factor=8,loop=rowsum:L1 %s | grep -v '^//' | FileCheck %s --check-prefix=ONE
// RUN: %astra-opt --list-rewrites %s | FileCheck %s --check-prefix=LIST

#define FOR_EACH(i, n) for (int i = threadIdx.x; i < (n); i += blockDim.x)

// CHECK:      __global__ void scale(float *out, const float *in, float a, int n) {
// CHECK-NEXT: #pragma unroll 4
// CHECK-NEXT:   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
__global__ void scale(float *out, const float *in, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = a * in[i];
}

// CHECK:      __global__ void rowsum(float *out, const float *in, int rows, int cols) {
// CHECK-NEXT: #pragma unroll 4
// CHECK-NEXT:   for (int r = blockIdx.x; r < rows; r += gridDim.x) {
// CHECK-NEXT:     float acc = 0.0f;
// CHECK-NEXT: #pragma unroll 4
// CHECK-NEXT:     for (int c = threadIdx.x; c < cols; c += blockDim.x)
__global__ void rowsum(float *out, const float *in, int rows, int cols) {
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
      acc += in[r * cols + c];
    out[r * blockDim.x + threadIdx.x] = acc;
  }
}

// CHECK:      __global__ void dot8(float *out, const float *a, const float *b, int n) {
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i < n) {
// CHECK-NEXT:     float s = 0.0f;
// CHECK-NEXT: #pragma unroll 2
// CHECK-NEXT:     for (int k = 0; k < 8; ++k)
// CHECK-NEXT:       s += a[i * 8 + k] * b[k];
// CHECK-NEXT:     out[i] = s;
// CHECK-NEXT:   }
// CHECK-NEXT:   FOR_EACH(t, n) out[t] += 1.0f;
// CHECK-NEXT: }
__global__ void dot8(float *out, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
#pragma unroll 2
    for (int k = 0; k < 8; ++k)
      s += a[i * 8 + k] * b[k];
    out[i] = s;
  }
  FOR_EACH(t, n) out[t] += 1.0f;
}

// CHECK: void launch(float *o, const float *i, int n) { scale<<<1, 128>>>(o, i, 2.0f, n); }
void launch(float *o, const float *i, int n) { scale<<<1, 128>>>(o, i, 2.0f, n); }

// ONE:      __global__ void rowsum(float *out, const float *in, int rows, int cols) {
// ONE-NEXT:   for (int r = blockIdx.x; r < rows; r += gridDim.x) {
// ONE-NEXT:     float acc = 0.0f;
// ONE-NEXT: #pragma unroll 8
// ONE-NEXT:     for (int c = threadIdx.x; c < cols; c += blockDim.x)

// LIST: unroll-pragma.cu:54:5: unroll dot8 dot8:L0: does not apply: the loop already has '#pragma unroll 2'
// LIST: unroll-pragma.cu:58:3: unroll dot8 dot8:L1: does not apply: the loop is inside the expansion of macro 'FOR_EACH'

// The grid-stride loop's body is repeated four times in the unrolled loop.
// ORIG-LABEL: .entry _Z5scalePfPKffi(
// ORIG:       Loop Header
// ORIG-COUNT-1: ld.global
// ORIG-NOT:   ld.global
// ORIG:       ret;
// PTX-LABEL: .entry _Z5scalePfPKffi(
// PTX:       Loop Header
// PTX-COUNT-4: ld.global.b32
// PTX:       ret;
