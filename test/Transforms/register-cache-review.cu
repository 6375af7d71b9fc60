// register-cache refuses the kernels a review found it rewrote wrongly (each
// confirmed on an H100 before the checks of RegisterCacheChecks.cpp): the
// cached path gives each thread other elements (packs) and reads and writes
// whole packs, so a body that reads the thread's index or another loop's
// per-thread accumulator, a row accessed under a condition, code outside the
// chain that touches a row, a thread-dependent store between the loops, a
// return between them, an integer accumulating floats, calls that may write
// (a user function, atomics, an atomic reference, a lambda, inline assembly),
// a row in shared memory or of volatile elements, and a bound that names
// another `n` are refused with their reasons.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s
// RUN: %astra-opt --list-rewrites %s 2>&1 | grep " register-cache" | FileCheck %s --check-prefix=NONE
// NONE-NOT: : applies

#include <cuda/atomic>
#include <cuda_runtime.h>

// A: body of pass 2 uses threadIdx.x
__global__ void a_tid(float *out, const float *in, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int q = 0; q < blockDim.x; ++q) total += partial[q];
  }
  __syncthreads();
  float t = total;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t + (float)threadIdx.x;
  }
}

// B: per-thread partial count stored between the passes / used in pass 2
__global__ void b_partial(float *out, int *partial, const float *in, int d) {
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  int cnt = 0;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    cnt += x[i] > 0.0f;
  }
  partial[blockIdx.x * blockDim.x + threadIdx.x] = cnt;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * cnt;
  }
}

// C: optional bias pointer guarded by a flag; bias may be nullptr
__global__ void c_optional(float *out, const float *in, const float *bias, bool has_bias, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = x[i];
    if (has_bias) v += bias[i];
    s += v;
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int q = 0; q < blockDim.x; ++q) total += partial[q];
  }
  __syncthreads();
  float t = total;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = x[i];
    if (has_bias) v += bias[i];
    y[i] = v / t;
  }
}

// D: conditional store; blocks write disjoint (interleaved) elements of one shared output row
__global__ void d_condstore(float *out, const float *in, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  const float *x = in;            // every block reads the same row
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int q = 0; q < blockDim.x; ++q) total += partial[q];
  }
  __syncthreads();
  float t = total;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    if (i % gridDim.x == blockIdx.x) out[i] = x[i] * t + blockIdx.x;
  }
}

// E: a loop before the chain writes the row per element (own elements, no barrier needed originally)
__global__ void e_before(float *out, float *work, const float *in, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  float *x = work + blockIdx.x * d;
  const float *a = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = a[i];
    for (int r = 0; r < (threadIdx.x / 32) * 200; ++r) v = v * 0.5f + 0.5f * a[i];
    x[i] = v + 1.0f;
  }
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int q = 0; q < blockDim.x; ++q) total += partial[q];
  }
  __syncthreads();
  float t = total;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
}

// F: a loop after the chain re-reads the row pass 2 wrote (own elements, no barrier needed originally)
__global__ void f_after(float *out, float *out2, const float *in, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float *z = out2 + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int q = 0; q < blockDim.x; ++q) total += partial[q];
  }
  __syncthreads();
  float t = total;
  if (threadIdx.x < 64) __nanosleep(200000);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = y[i];
    for (int r = 0; r < 2; ++r) v = v * 2.0f;
    z[i] = v;
  }
}

// G: between the passes the thread reads its own element of the stored row through another pointer
__global__ void g_alias(float *r, float *r_alias, const float *in, float *out, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    if (threadIdx.x < 64) __nanosleep(20000);
    r[i] = x[i] * 2.0f;
    s += x[i];
  }
  float mine = r_alias[threadIdx.x];
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int q = 0; q < blockDim.x; ++q) total += partial[q];
  }
  __syncthreads();
  float t = total;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t + mine;
  }
}

// H: per-thread partial written to a global workspace between the passes (guard address depends on threadIdx.x)
__global__ void h_ws(float *out, float *in, float *ws, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  ws[blockIdx.x * blockDim.x + threadIdx.x] = s;
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int q = 0; q < blockDim.x; ++q) total += partial[q];
  }
  __syncthreads();
  float t = total;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
}

// I: integer accumulator with a float addend (truncates at every step)
__global__ void i_intsum(int *res, float *out, const float *in, int d) {
  __shared__ int itotal;
  __shared__ int ipartial[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  int s = 0;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  ipartial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    itotal = 0;
    for (int q = 0; q < blockDim.x; ++q) itotal += ipartial[q];
    res[blockIdx.x] = itotal;
  }
  __syncthreads();
  int t = itotal;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] * t;
  }
}

// J: inline asm store between the passes
__global__ void j_asm(float *out, float *in, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int q = 0; q < blockDim.x; ++q) total += partial[q];
  }
  __syncthreads();
  float t = total;
  if (threadIdx.x == 0) asm volatile("st.global.f32 [%0], %1;" :: "l"(in + blockIdx.x * d), "f"(t) : "memory");
  __syncthreads();
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
}

// K: the cached row lives in shared memory and is updated between the passes
__global__ void k_shared(float *out, const float *in, int d) {
  __shared__ __align__(16) float srow[1024];
  __shared__ float total;
  __shared__ float partial[1024];
  float *y = out + blockIdx.x * d;
  for (int j = threadIdx.x; j < 1024; j += blockDim.x) srow[j] = in[blockIdx.x * d + j];
  __syncthreads();
  const float *x = srow;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int q = 0; q < blockDim.x; ++q) total += partial[q];
  }
  __syncthreads();
  srow[threadIdx.x] = srow[threadIdx.x] * 2.0f;
  __syncthreads();
  float t = total;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
}

// L: the row length n of pass 2 is a different variable with the same name
__global__ void l_shadow_n(float *out, const float *in, int n, int m) {
  __shared__ float total;
  __shared__ float partial[1024];
  const float *x = in + blockIdx.x * n;
  float *y = out + blockIdx.x * n;
  {
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      s += x[i];
    }
    partial[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      total = 0.0f;
      for (int q = 0; q < blockDim.x; ++q) total += partial[q];
    }
    __syncthreads();
    float t = total;
    const int n = m;  // pass 2 covers only the first m elements
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      y[i] = x[i] / t;
    }
  }
}

// N: half of the threads leave between the passes
__global__ void n_return(float *out, const float *in, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  partial[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      total = 0.0f;
      for (int q = 0; q < blockDim.x; ++q) total += partial[q];
    }
    __syncthreads();
  float t = total;
  if (threadIdx.x >= blockDim.x / 2) return;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
}

// O: a lambda called between the passes writes the cached row
__global__ void o_lambda(float *out, float *in, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  partial[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      total = 0.0f;
      for (int q = 0; q < blockDim.x; ++q) total += partial[q];
    }
    __syncthreads();
  float t = total;
  auto clear = [&](int j) { x[j] = 0.0f; };
  clear(threadIdx.x);
  __syncthreads();
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
}

// P: cuda::atomic_ref::store between the passes writes the cached row
__global__ void p_atomicref(float *out, float *in, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  partial[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      total = 0.0f;
      for (int q = 0; q < blockDim.x; ++q) total += partial[q];
    }
    __syncthreads();
  float t = total;
  cuda::atomic_ref<float, cuda::thread_scope_block> first(x[threadIdx.x]);
  first.store(0.0f);
  __syncthreads();
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
}

// Q: pass 1 calls a function that scales the row through another pointer (w == x here)
__device__ void scale_q_call(float *p, int j) { p[j] *= 2.0f; }
__global__ void q_call(float *out, const float *in, float *w, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
    scale_q_call(w, blockIdx.x * d + i);
  }
  partial[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      total = 0.0f;
      for (int q = 0; q < blockDim.x; ++q) total += partial[q];
    }
    __syncthreads();
  float t = total;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
}

// R: pass 1 does atomicAdd(w + i, ...) (pointer arithmetic, not &w[i]); w == x here
__global__ void r_atomic(float *out, const float *in, float *w, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  const float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
    atomicAdd(w + i, 1.0f);
  }
  partial[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      total = 0.0f;
      for (int q = 0; q < blockDim.x; ++q) total += partial[q];
    }
    __syncthreads();
  float t = total;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
}

__global__ void v_volatile(float *out, volatile float *in, int d) {
  __shared__ float total;
  __shared__ float partial[1024];
  volatile float *x = in + blockIdx.x * d;
  float *y = out + blockIdx.x * d;
  float s = 0.0f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    s += x[i];
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    total = 0.0f;
    for (int q = 0; q < blockDim.x; ++q) total += partial[q];
  }
  __syncthreads();
  float t = total;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    y[i] = x[i] / t;
  }
}

// CHECK-DAG: register-cache a_tid a_tid:L0: does not apply: the loop at line {{[0-9]+:[0-9]+}} reads the thread's index at line {{[0-9]+:[0-9]+}} (the cached path gives each thread other element
// CHECK-DAG: register-cache b_partial b_partial:L0: does not apply: line {{[0-9]+:[0-9]+}} stores to memory between the loops at an address that depends on the thread (the guard that checks it must take
// CHECK-DAG: register-cache c_optional c_optional:L0: does not apply: 'bias' is read only under a condition; the vector path reads whole packs on every step
// CHECK-DAG: register-cache d_condstore d_condstore:L0: does not apply: no later loop of the block runs over the same row
// CHECK-DAG: register-cache e_before e_before:L2: does not apply: line {{[0-9]+:[0-9]+}} uses 'x' outside the loops, whose row the chain keeps in registers (code there may rely on which thread owns wh
// CHECK-DAG: register-cache f_after f_after:L0: does not apply: line {{[0-9]+:[0-9]+}} uses 'y' outside the loops, whose row the chain keeps in registers (code there may rely on which thread owns wh
// CHECK-DAG: register-cache g_alias g_alias:L0: does not apply: the loop at line {{[0-9]+:[0-9]+}} reads the thread's index at line {{[0-9]+:[0-9]+}} (the cached path gives each thread other element
// CHECK-DAG: register-cache h_ws h_ws:L0: does not apply: line {{[0-9]+:[0-9]+}} stores to memory between the loops at an address that depends on the thread (the guard that checks it must take
// CHECK-DAG: register-cache i_intsum i_intsum:L0: does not apply: the loop at line {{[0-9]+:[0-9]+}} accumulates a floating value into an integer (it truncates at each step: the grouping changes it) (
// CHECK-DAG: register-cache j_asm j_asm:L0: does not apply: between the loops, line {{[0-9]+:[0-9]+}} holds inline assembly
// CHECK-DAG: register-cache k_shared k_shared:L0: does not apply: the loop writes 'srow[j]'; only stores `p[base + i]` through pointer variables declared outside the loop can be vectorized
// CHECK-DAG: register-cache k_shared k_shared:L1: does not apply: 'x' points into the __shared__ array 'srow'
// CHECK-DAG: register-cache l_shadow_n l_shadow_n:L2: does not apply: the row length may change between the loops: 'n' is declared inside the loop
// CHECK-DAG: register-cache n_return n_return:L0: does not apply: between the loops, line {{[0-9]+:[0-9]+}} returns (the threads that go on would not own the elements they owned)
// CHECK-DAG: register-cache o_lambda o_lambda:L0: does not apply: between the loops, line {{[0-9]+:[0-9]+}} holds a lambda
// CHECK-DAG: register-cache p_atomicref p_atomicref:L0: does not apply: between the loops, line {{[0-9]+:[0-9]+}} makes an atomic reference ('cuda::atomic_ref<float, cuda::thread_scope_block>')
// CHECK-DAG: register-cache q_call q_call:L0: does not apply: the loop at line {{[0-9]+:[0-9]+}} calls 'scale_q_call', which may write memory (line {{[0-9]+:[0-9]+}})
// CHECK-DAG: register-cache r_atomic r_atomic:L0: does not apply: the loop at line {{[0-9]+:[0-9]+}} calls 'atomicAdd', which may write memory (line {{[0-9]+:[0-9]+}})
// CHECK-DAG: register-cache v_volatile v_volatile:L0: does not apply: 'x' points to volatile elements
