// unroll mode=manual on the kernels a review found it rewrote wrongly
// (/work/review-unroll, cases 01-05): a comparison that converts the
// variable and a body that declares __shared__ or static variables are
// refused; a step the body declares again, and a macro step that expands to
// an expression, are read into a const; an unsigned variable gets a guard
// that cannot wrap; a short variable's copies keep its type.
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: %astra-opt --apply=unroll:mode=manual %s 2>&1 | grep -v '^//' | FileCheck %s

// LIST-DAG: unroll:mode=manual mixsign mixsign:L0: does not apply: the comparison converts 'i' (int) to 'unsigned int', which changes some of its values
// LIST-DAG: unroll:mode=manual sharedcarry sharedcarry:L0: does not apply: the body declares 'acc' __shared__ at {{[0-9]+}}:22: each copy of the body would declare its own, splitting what the iterations share
// LIST-DAG: unroll:mode=manual staticcount staticcount:L0: does not apply: the body declares 'calls' static at
// LIST-DAG: unroll:mode=manual shadowstep shadowstep:L0: applies
// LIST-DAG: unroll:mode=manual macplus macplus:L0: applies
// LIST-DAG: unroll:mode=manual ucount ucount:L0: applies
// LIST-DAG: unroll:mode=manual shortvar shortvar:L0: applies

// CHECK:      __global__ void mixsign(int *out, int start, unsigned n) {
// CHECK-NEXT:   for (int i = start; i < n; ++i)
__global__ void mixsign(int *out, int start, unsigned n) {
  for (int i = start; i < n; ++i)
    out[i + 8] = i;
}

// CHECK:      __global__ void shadowstep(
// CHECK:        const int i_step = s;
// CHECK-NEXT:   for (; i + 3 * i_step < n; i += 4 * i_step) {
// CHECK:            int v = in[i + i_step];
// CHECK-NEXT:       int s = v >= 0 ? 1 : -1;
// CHECK-NEXT:       out[i + i_step] = s * v;
// CHECK:        for (; i < n; i += s) {
__global__ void shadowstep(int *out, const int *in, int n, int s) {
  for (int i = threadIdx.x; i < n; i += s) {
    int v = in[i];
    int s = v >= 0 ? 1 : -1;
    out[i] = s * v;
  }
}

// CHECK:      __global__ void sharedcarry(
// CHECK-NEXT:   for (int i = 0; i < n; ++i) {
__global__ void sharedcarry(float *out, const float *in, int n) {
  for (int i = 0; i < n; ++i) {
    __shared__ float acc;
    if (threadIdx.x == 0) acc = (i == 0 ? 0.0f : acc) + in[i];
    __syncthreads();
    out[i * blockDim.x + threadIdx.x] = acc;
    __syncthreads();
  }
}

__global__ void staticcount(int *out, int n) {
  for (int i = 0; i < n; ++i) {
    static int calls;
    calls = calls + 1;
    out[i] = calls;
  }
}

// CHECK:      __global__ void macplus(
// CHECK:        const int i_step = STEP;
// CHECK-NEXT:   for (; i + 3 * i_step < n; i += 4 * i_step) {
// CHECK-NEXT:     out[i] += 1;
// CHECK-NEXT:     out[i + i_step] += 1;
#define STEP W + 1
__global__ void macplus(int *out, int n, int W) {
  for (int i = 0; i < n; i += STEP)
    out[i] += 1;
}

// CHECK:      __global__ void ucount(int *out, unsigned start, unsigned end, unsigned s) {
// CHECK-NEXT:   {
// CHECK-NEXT:     unsigned int i = start;
// CHECK-NEXT:     for (; i < end && (end - i - 1) / 3 >= s; i += 4 * s) {
__global__ void ucount(int *out, unsigned start, unsigned end, unsigned s) {
  for (unsigned i = start; i < end; i += s)
    out[(i - start) / s] += 1;
}

// CHECK:      __global__ void ucountle(
// CHECK:          for (; i <= end && end - i >= 6; i += 8) {
__global__ void ucountle(int *out, unsigned start, unsigned end) {
  for (unsigned i = start; i <= end; i += 2)
    out[i - start] += 1;
}

// CHECK:      __global__ void shortvar(
// CHECK:          for (; i + 3 < n; i += 4) {
// CHECK:              auto j = (short)(i + 1);
// CHECK-NEXT:         out[(short)(i + 1)] = sizeof(j);
__global__ void shortvar(int *out, short n) {
  for (short i = 0; i < n; ++i) {
    auto j = i;
    out[i] = sizeof(j);
  }
}
