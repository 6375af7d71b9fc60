// REQUIRES: cuda-headers
// What the widened and per-thread forms of vectorize-loads refuse, with the
// place and the reason.
// RUN: not %astra-opt --apply=vectorize-loads:kernel=exit_tid %s 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not %astra-opt --apply=vectorize-loads:kernel=reads_tid %s 2>&1 | FileCheck %s --check-prefix=TID
// RUN: not %astra-opt --apply=vectorize-loads:kernel=two_offsets %s 2>&1 | FileCheck %s --check-prefix=OFFSETS
// RUN: not %astra-opt --apply=vectorize-loads:kernel=after_block %s 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not %astra-opt --apply=vectorize-loads:kernel=atomic_read %s 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: not %astra-opt --apply=vectorize-loads:kernel=odd_div %s 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not %astra-opt --apply=vectorize-loads:kernel=index_before %s 2>&1 | FileCheck %s --check-prefix=BEFORE
// Accepted: a conditional store runs per lane, next to vector loads.
// RUN: %astra-opt --apply=vectorize-loads:kernel=cond_store %s | FileCheck %s --check-prefix=COND

__global__ void exit_tid(float *out, const float *in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || threadIdx.x == 3)
    return;
  out[i] = in[i];
}
// EXIT: vectorize-widened-errors.cu:16:17: note: one element per thread: the condition 'threadIdx.x == 3' of the bound check differs between the threads that would share packs

__global__ void reads_tid(float *out, const float *in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = in[i] + threadIdx.x;
}
// TID: vectorize-widened-errors.cu:26:20: note: one element per thread: the body reads 'threadIdx.x', which differs between the threads that share the elements

__global__ void two_offsets(float *out, const float *in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = in[i];
  out[i + 1] = 0.0f;
}
// OFFSETS: note: one element per thread: 'out' is stored as a vector and also accessed at another offset or per element

__global__ void after_block(float *out, const float *in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i];
  }
  out[0] = 1.0f;
}
// AFTER: vectorize-widened-errors.cu:44:3: note: one element per thread: 'out' is accessed both by the per-element statements and outside them, where each thread keeps its original element, and one of them writes it

__global__ void atomic_read(float *out, float *seen, const float *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    atomicAdd(&out[i], in[i]);
    seen[i] = out[i];
  }
}
// ATOMIC: widened: 'out' is updated by atomics and also read or written directly

__global__ void cond_store_read(float *out, const float *in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = out[i] + in[i];
  if (in[i] > 0.0f)
    out[i] = v;
}
// RUN: not %astra-opt --apply=vectorize-loads:kernel=cond_store_read %s 2>&1 | FileCheck %s --check-prefix=SCALARW
// SCALARW: one element per thread: 'out' is stored per element (a conditional store or an index that is not unit-stride) and also accessed as a vector

__global__ void odd_div(float *out, const float *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i / 3] = in[i % 3];
}
// DIV: widened: no access `p[e]` has an index e that is unit-stride in 'i'

__global__ void index_before(float *out, const float *in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = 2 * i;
  if (i >= n)
    return;
  out[i] = in[j];
}
// BEFORE: note: one element per thread: 'j' depends on the thread's place among the threads that share the elements

__global__ void cond_store(float *out, const float *in, const float *mask,
                           int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i] * 2.0f;
  if (mask[i] > 0.0f)
    out[i] = v;
}
// COND:       float v[VecW];
// COND:       inVec.u = *reinterpret_cast<const float4 *>(&in[i]);
// COND:       maskVec.u = *reinterpret_cast<const float4 *>(&mask[i]);
// COND:       for (int lane = 0; lane < VecW; ++lane) {
// COND-NEXT:    v[lane] = inVec.v[lane] * 2.0f;
// COND-NEXT:    if (maskVec.v[lane] > 0.0f)
// COND-NEXT:      out[(i + lane)] = v[lane];
