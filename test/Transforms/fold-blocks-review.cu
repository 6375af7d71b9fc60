// fold-blocks refuses the kernels a review found it folded wrongly (each
// confirmed on the CPU emulation, /work/review-fold): what the kernel runs
// besides its calls was not scanned (an implicit constructor's in-class
// initialiser, a constructor in a header, a destructor, a call through a
// function pointer, a device lambda written in the host code), a spaced
// `# ifdef` passed the preprocessor check, and the kernel's own guard
// accepted a declaration whose destructor runs at the guard's return. Also
// refused: a default argument and a temporary's destructor that read
// blockIdx.y, and a barrier in a destructor under exact=1. A lambda written
// in the kernel and a plain struct still fold.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s
// RUN: %astra-opt --list-rewrites %s 2>&1 | grep " fold-blocks " | grep -v "in_kernel_lambda\|plain_struct" | FileCheck %s --check-prefix=NONE
// NONE-NOT: : applies
// RUN: not %astra-opt --apply=fold-blocks:kernel=dtor_barrier,exact=1 %s 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: %astra-opt --apply=fold-blocks:kernel=in_kernel_lambda,bound=num_rows %s | FileCheck %s --check-prefix=LAMBDA

#include <cuda_runtime.h>
#include "Inputs/fold-review-coord.h"

// 03: blockIdx.y in an in-class initialiser (the implicit constructor).
struct RowCoord {
  unsigned row = blockIdx.y;
  unsigned col = threadIdx.x;
};
__global__ void member_init(float *out, const float *in, int num_rows, int d) {
  RowCoord c;
  if (c.col < d)
    out[blockIdx.y * d + c.col] = in[c.row * d + c.col];
}
// CHECK-DAG: fold-blocks member_init: does not apply: {{.*}}a device function it calls reads blockIdx.y (only the kernel's body is rewritten) [RowCoord::RowCoord]

// 04: blockIdx.y in a constructor defined in a project header.
__global__ void header_ctor(float *out, const float *in, int num_rows, int d) {
  Coord c;
  if (c.col < d)
    out[blockIdx.y * d + c.col] = in[c.row * d + c.col];
}
// CHECK-DAG: fold-blocks header_ctor: does not apply: {{.*}}a device function it calls reads blockIdx.y (only the kernel's body is rewritten) [Coord::Coord]

// 05: blockIdx.y in the destructor of a local aggregate.
struct RowSum {
  float *out;
  float acc;
  __device__ ~RowSum() {
    if (threadIdx.x == 0)
      out[blockIdx.y] = acc;
  }
};
__global__ void local_dtor(float *out, const float *in, int num_rows, int d) {
  RowSum r{out, 0.0f};
  r.acc = in[blockIdx.y * d];
}
// CHECK-DAG: fold-blocks local_dtor: does not apply: {{.*}}a device function it calls reads blockIdx.y (only the kernel's body is rewritten) [RowSum::~RowSum]

// The destructor of a temporary.
struct RowMark {
  float *out;
  __device__ ~RowMark() { out[blockIdx.y] = 1.0f; }
  __device__ float get() const { return 2.0f; }
};
__global__ void temp_dtor(float *out, int num_rows) {
  out[blockIdx.y + num_rows] = RowMark{out}.get();
}
// CHECK-DAG: fold-blocks temp_dtor: does not apply: {{.*}}[RowMark::~RowMark]

// 06: a call through a function pointer.
__device__ unsigned row_of() { return blockIdx.y; }
__device__ unsigned (*row_fn)() = row_of;
__global__ void fn_pointer(float *out, const float *in, int num_rows, int d) {
  unsigned r = row_fn();
  if (threadIdx.x < d)
    out[blockIdx.y * d + threadIdx.x] = in[r * d + threadIdx.x];
}
// CHECK-DAG: fold-blocks fn_pointer: does not apply: {{.*}}it makes a call through a pointer (what the callee reads is not known)

// 07: a conditional written `# ifdef`.
__global__ void spaced_ifdef(float *out, const float *in, int num_rows, int d) {
  unsigned r = blockIdx.y;
# ifdef ROW_FROM_TABLE
  r = blockIdx.y ^ 1;
# endif
  if (threadIdx.x < d)
    out[blockIdx.y * d + threadIdx.x] = in[r * d + threadIdx.x];
}
// CHECK-DAG: fold-blocks spaced_ifdef: does not apply: {{.*}}its body holds a preprocessor conditional

// ... and one in a device function it calls.
__device__ unsigned pick_row(unsigned r) {
  #  if defined(ROW_FROM_TABLE)
  return blockIdx.y ^ 1;
  #  else
  return r;
  #  endif
}
__global__ void callee_ifdef(float *out, const float *in, int num_rows, int d) {
  unsigned r = pick_row(blockIdx.y);
  if (threadIdx.x < d)
    out[blockIdx.y * d + threadIdx.x] = in[r * d + threadIdx.x];
}
// CHECK-DAG: fold-blocks callee_ifdef: does not apply: {{.*}}it holds a preprocessor conditional (the branch not compiled would keep blockIdx) [pick_row]

// 08: the kernel's guard, with a declaration before it that is destroyed
// (on rows past the bound too).
struct StoreOnExit {
  float *out;
  unsigned row;
  float val;
  __device__ ~StoreOnExit() {
    if (threadIdx.x == 0)
      out[row] = val;
  }
};
__global__ void guard_dtor(float *out, const float *in, int num_rows, int d) {
  StoreOnExit st{out, blockIdx.y, -1.0f};
  int row = blockIdx.y;
  if (row >= num_rows) return;
  if (threadIdx.x == 0)
    st.val = in[row * d];
}
// CHECK-DAG: fold-blocks guard_dtor: does not apply: {{.*}}the folded index needs a bound

// 09: a device lambda written in the host code, called by a kernel template.
template <typename F>
__global__ void apply_rows(float *out, int num_rows, int d, F f) {
  if (threadIdx.x < d)
    out[blockIdx.y * d + threadIdx.x] = f(threadIdx.x);
}
void launch_apply_rows(float *out, int num_rows, int d, dim3 grid, dim3 block) {
  auto f = [] __device__ (unsigned i) { return (float)(blockIdx.y * 100 + i); };
  apply_rows<<<grid, block>>>(out, num_rows, d, f);
}
// CHECK-DAG: fold-blocks apply_rows: does not apply: {{.*}}a device function it calls reads blockIdx.y (only the kernel's body is rewritten) [(lambda at {{[0-9]+}}:{{[0-9]+}})::operator()]

// A default argument evaluated in the kernel.
__device__ unsigned row_or(unsigned r = blockIdx.y) { return r; }
__global__ void default_arg(float *out, int num_rows) {
  out[blockIdx.y] = (float)row_or();
}
// CHECK-DAG: fold-blocks default_arg: does not apply: {{.*}}an in-class initialiser or default argument it evaluates reads blockIdx.y (only the kernel's body is rewritten)

// A barrier in a destructor, under exact=1 (its condition differs between
// the rows of a folded block).
struct BlockSync {
  __device__ ~BlockSync() { __syncthreads(); }
};
__global__ void dtor_barrier(float *out, const float *in, int d) {
  __shared__ float buf[1024];
  buf[threadIdx.x] = in[blockIdx.y * d + threadIdx.x];
  if (blockIdx.y % 2 == 0) {
    BlockSync s;
    out[blockIdx.y * d + threadIdx.x] = buf[threadIdx.x];
  }
}
// EXACT: it calls __syncthreads, which a block's rows would share [BlockSync::~BlockSync]

// Still folded: a lambda written in the kernel (its body is the kernel's
// text, rewritten), a struct with nothing to run.
struct Plain {
  float scale;
};
__global__ void in_kernel_lambda(float *out, const float *in, int num_rows,
                                 int d) {
  auto at = [&](unsigned i) { return in[blockIdx.y * d + i]; };
  Plain p{2.0f};
  if (threadIdx.x < d)
    out[blockIdx.y * d + threadIdx.x] = p.scale * at(threadIdx.x);
}
// CHECK-DAG: fold-blocks in_kernel_lambda: does not apply: {{.*}}the folded index needs a bound
// LAMBDA: const unsigned int foldY = blockIdx.y * blockDim.y + threadIdx.y;
// LAMBDA: auto at = [&](unsigned i) { return in[foldY * d + i]; };
// LAMBDA: out[foldY * d + threadIdx.x] = p.scale * at(threadIdx.x);
