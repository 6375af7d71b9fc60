// REQUIRES: cuda-headers
// Loops that vectorize-loads must refuse: exit 1, the place and the reason,
// no output file.
// RUN: rm -f %t.out
// RUN: not %astra-opt --apply=vectorize-loads:kernel=nonunit %s -o %t.out 2>&1 | FileCheck %s --check-prefix=NONUNIT
// RUN: not test -e %t.out
// RUN: not %astra-opt --apply=vectorize-loads:kernel=brk %s -o %t.out 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: not %astra-opt --apply=vectorize-loads:kernel=alias %s -o %t.out 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not %astra-opt --apply=vectorize-loads:kernel=carried %s -o %t.out 2>&1 | FileCheck %s --check-prefix=CARRIED
// RUN: not %astra-opt --apply=vectorize-loads:kernel=sync %s -o %t.out 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not %astra-opt --apply=vectorize-loads:kernel=ivmod %s -o %t.out 2>&1 | FileCheck %s --check-prefix=IVMOD
// RUN: not %astra-opt --apply=vectorize-loads:kernel=offset_start %s -o %t.out 2>&1 | FileCheck %s --check-prefix=START
// RUN: not %astra-opt --apply=vectorize-loads:kernel=per_thread_row %s -o %t.out 2>&1 | FileCheck %s --check-prefix=UNIFORM
// RUN: not %astra-opt --apply=vectorize-loads:kernel=same_elem %s -o %t.out 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not %astra-opt --apply=vectorize-loads:loop=nested:L0 %s -o %t.out 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not %astra-opt --apply=vectorize-loads:kernel=escape %s -o %t.out 2>&1 | FileCheck %s --check-prefix=ESCAPE
// RUN: not %astra-opt --apply=vectorize-loads:kernel=smem %s -o %t.out 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not test -e %t.out
// Bad parameters.
// RUN: not %astra-opt --apply=vectorize-loads:width=4 %s 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not %astra-opt --apply=vectorize-loads:vec=4 %s 2>&1 | FileCheck %s --check-prefix=KEY

__global__ void nonunit(float *out, const float *in, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[2 * i] = in[2 * i];
}
// NONUNIT: error: rewrite 'vectorize-loads' does not apply to kernel nonunit
// NONUNIT-NEXT: vectorize-errors.cu:25:5: note: loop nonunit:L0: 'out[2 * i]' is not unit-stride in 'i' (stride 2); widened: no access `p[e]` has an index e that is unit-stride in 'i'

__global__ void brk(float *out, const float *in, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (in[i] < 0.0f)
      break;
    out[i] = in[i];
  }
}
// BREAK: vectorize-errors.cu:33:7: note: loop brk:L0: the loop body contains a break

__global__ void alias(float *x, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    x[i] = x[i + 1] * 2.0f;
}
// ALIAS: vectorize-errors.cu:41:12: note: loop alias:L0: 'x' is stored at offset '0' and also accessed at offset '1'; vector order could change what is read

__global__ void carried(float *out, const float *in, int n) {
  float prev = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    out[i] = in[i] - prev;
    prev = in[i];
  }
}
// CARRIED: vectorize-errors.cu:49:5: note: loop carried:L0: 'prev' carries a value from one iteration to the next and is not a reduction

__global__ void sync(float *out, const float *in, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    out[i] = in[i];
    __syncthreads();
  }
}
// SYNC: vectorize-errors.cu:57:5: note: loop sync:L0: the loop body calls '__syncthreads'

__global__ void ivmod(float *out, const float *in, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    out[i] = in[i];
    i += 1;
  }
}
// IVMOD: vectorize-errors.cu:65:5: note: loop ivmod:L0: the loop body modifies the induction variable 'i'

__global__ void offset_start(float *out, const float *in, int n) {
  for (int i = threadIdx.x + 1; i < n; i += blockDim.x)
    out[i] = in[i];
}
// START: vectorize-errors.cu:71:3: note: loop offset_start:L0: the loop's start and step are not a recognised thread partition of [0, n)

__global__ void per_thread_row(float *out, const float *in, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[threadIdx.x * n + i] = in[i];
}
// UNIFORM: vectorize-errors.cu:78:9: note: loop per_thread_row:L0: the loop's body reads threadIdx.x: each pack's elements go to another thread

__global__ void same_elem(float *out, const float *in, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[0] = in[i];
}
// SAME: vectorize-errors.cu:84:5: note: loop same_elem:L0: the store to 'out[0]' does not depend on 'i'

__global__ void wide(double *out, const double *in, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = in[i];
}
// Two doubles fit a 16-byte access, one does not fit an 8-byte one:
// RUN: %astra-opt --apply=vectorize-loads:kernel=wide %s | FileCheck %s --check-prefix=WIDE
// WIDE: constexpr int VecW = 2;
// RUN: not %astra-opt --apply=vectorize-loads:kernel=wide,width=8 %s 2>&1 | FileCheck %s --check-prefix=WIDE8
// WIDE8: note: loop wide:L0: the elements are already 8 bytes wide; a 8-byte access holds only one

__global__ void nested(float *out, const float *in, int n) {
  for (int r = 0; r < 4; ++r)
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      out[r * n + i] = in[r * n + i];
}
// NESTED: error: rewrite 'vectorize-loads' does not apply to loop nested:L0
// NESTED-NEXT: vectorize-errors.cu:100:5: note: loop nested:L0: the loop body contains a nested loop
// Its inner loop applies, so only L0 is refused:
// RUN: %astra-opt --apply=vectorize-loads:loop=nested:L1 %s | FileCheck %s --check-prefix=INNER
// INNER: for (int vecIdx = threadIdx.x; vecIdx < n / VecW; vecIdx += blockDim.x) {
// INNER: *reinterpret_cast<float4 *>(out + r * n + vecBase) = outVec.u;

__device__ void store(float *p, float v) { *p = v; }
__global__ void escape(float *out, const float *in, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    store(&out[i], in[i]);
}
// ESCAPE: vectorize-errors.cu:113:12: note: loop escape:L0: the address or a member of 'out[i]' is used

__global__ void smem(float *out, const float *in, int n) {
  __shared__ float tile[256];
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    tile[i] = in[i];
  out[threadIdx.x] = tile[threadIdx.x];
}
// SMEM: vectorize-errors.cu:121:22: note: loop smem:L0: 'tile' is accessed by the loop and, with no barrier between them, by another statement where each thread keeps its original elements

// WIDTH: error: rewrite 'vectorize-loads': parameter 'width' must be one of 16, 8, got '4'
// KEY: error: rewrite 'vectorize-loads': unknown parameter 'vec'
