// warp-reduce, from a review of the tuple form (2026-12-07): kernels on
// which the first version applied and computed something else (under the
// host emulation of kernels/emu/shim.h) or did not compile. Each is now
// refused with its reason, or (a typedef that means another type where the
// tree stands) rewritten with the element's real type.
// REQUIRES: cuda-headers
// RUN: %astra-opt --list-rewrites %s 2>&1 | FileCheck %s
// RUN: %astra-opt --apply=warp-reduce:loop=typedef_shadow:L0 %s -o %t.cu
// RUN: FileCheck %s --check-prefix=TYPE < %t.cu
// RUN: %astra-opt --emit-ptx %t.cu > /dev/null

#define TREE_HEAD                                                            \
  __shared__ float v[1024];                                                  \
  __shared__ int id[1024];                                                   \
  unsigned tid = threadIdx.x;                                                \
  v[tid] = in[blockIdx.x * blockDim.x + tid];                                \
  id[tid] = tid;

struct Pair { int a, b; };

// CHECK: warp-reduce binding_read binding_read:L0: does not apply: the tree step names the structured binding 'w', declared outside it
__global__ void binding_read(float *out, const float *in) {
  TREE_HEAD
  Pair p = {(int)(threadIdx.x & 3), 1};
  auto [w, one] = p;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      float a = v[tid], b = v[tid + s];
      v[tid] = w == 0 ? a + b : fmaxf(a, b);
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = v[0];
}

// CHECK: warp-reduce binding_write binding_write:L0: does not apply: the tree step names the structured binding 'steps', declared outside it
__global__ void binding_write(float *out, const float *in) {
  TREE_HEAD
  Pair acc = {0, 0};
  auto &[steps, pad] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      v[tid] = v[tid] + v[tid + s];
      steps++;
    }
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + tid] = v[0] + acc.a;
}

// A counter of a loop around the tree whose step differs between threads.
// CHECK: warp-reduce loop_counter loop_counter:L1: does not apply: the tree step reads 'i', which may differ between the threads
__global__ void loop_counter(float *out, const float *in) {
  TREE_HEAD
  for (int j = 0, i = 0; j < 2; ++j, i += threadIdx.x & 1) {
    v[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) {
        float a = v[tid], b = v[tid + s];
        v[tid] = i == 0 ? a + b : fmaxf(a, b);
      }
      __syncthreads();
    }
    if (tid == 0) out[blockIdx.x * 2 + j] = v[0];
    __syncthreads();
  }
}

// CHECK: warp-reduce shared_in_step shared_in_step:L0: does not apply: the tree step declares the array 't'
__global__ void shared_in_step(float *out, const float *in) {
  TREE_HEAD
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      __shared__ float t[1024];
      t[tid] = v[tid + s];
      v[tid] = v[tid] + t[tid];
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = v[0];
}

// (unsigned char)256 is 0: the original's loop never runs at 512 threads.
// CHECK: warp-reduce narrow_cond narrow_cond:L0: does not apply: the loop's condition or step converts the stride to an integer of fewer than 16 bits
__global__ void narrow_cond(float *out, const float *in) {
  TREE_HEAD
  __syncthreads();
  for (int s = blockDim.x / 2; (unsigned char)s > 0; s >>= 1) {
    if (tid < s)
      v[tid] = fmaxf(v[tid], v[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = v[0];
}

// CHECK: warp-reduce narrow_index narrow_index:L0: does not apply: the tree step accesses 'v[(unsigned char)(tid + s)]', not a[tid] or a[tid + s] of a __shared__ array
__global__ void narrow_index(float *out, const float *in) {
  TREE_HEAD
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      if (v[(unsigned char)(tid + s)] > v[tid]) {
        v[tid] = v[(unsigned char)(tid + s)];
        id[tid] = id[(unsigned char)(tid + s)];
      }
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = id[0];
}

typedef float real;
// The registers are declared `float`, not `real` (an int where the tree is).
// TYPE-LABEL: __global__ void typedef_shadow(
// TYPE:         float treeOwn = v[treeLane * treeWarps + threadIdx.x / 32];
// TYPE:         const float treePartner = __shfl_down_sync(
__global__ void typedef_shadow(float *out, const float *in) {
  __shared__ real v[1024];
  __shared__ int id[1024];
  unsigned tid = threadIdx.x;
  v[tid] = in[blockIdx.x * blockDim.x + tid];
  id[tid] = tid;
  {
    typedef int real;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) {
        if (v[tid + s] > v[tid]) {
          v[tid] = v[tid + s];
          id[tid] = id[tid + s];
        }
      }
      __syncthreads();
    }
  }
  if (tid == 0) out[blockIdx.x] = id[0];
}

namespace smem {
__shared__ float qv[1024];
__shared__ int qid[1024];
} // namespace smem
// CHECK: warp-reduce qualified qualified:L0: does not apply: the tree step names 'qv' with a qualifier
__global__ void qualified(float *out, const float *in) {
  unsigned tid = threadIdx.x;
  smem::qv[tid] = in[blockIdx.x * blockDim.x + tid];
  smem::qid[tid] = tid;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      if (smem::qv[tid + s] > smem::qv[tid]) {
        smem::qv[tid] = smem::qv[tid + s];
        smem::qid[tid] = smem::qid[tid + s];
      }
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = smem::qid[0];
}

#define COMBINE(i, j)                                                        \
  if (v[j] > v[i]) {                                                         \
    v[i] = v[j];                                                             \
    id[i] = id[j];                                                           \
  }
// CHECK: warp-reduce macro_step macro_step:L0: does not apply: the tree step accesses 'v' through a macro
__global__ void macro_step(float *out, const float *in) {
  TREE_HEAD
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) { COMBINE(tid, tid + s) }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = id[0];
}

// No __shfl_down_sync overload takes a _BitInt(32).
// CHECK: warp-reduce bit_int bit_int:L0: does not apply: 'bv' is not an array of 32- or 64-bit integers or floats
__global__ void bit_int(float *out, const float *in) {
  __shared__ _BitInt(32) bv[1024];
  unsigned tid = threadIdx.x;
  bv[tid] = (_BitInt(32))(in[tid] * 100.0f);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      if (bv[tid + s] > bv[tid])
        bv[tid] = bv[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = (float)bv[0];
}

// The upper warps leave before the tree: the warps the shuffles pair are not
// whole (both forms).
// CHECK: warp-reduce early_exit early_exit:L0: does not apply: line {{[0-9]+}} may take some threads of the block away before the tree
// CHECK: warp-reduce early_exit_max early_exit_max:L0: does not apply: line {{[0-9]+}} may take some threads of the block away before the tree
// A block-uniform return does not matter.
// CHECK: warp-reduce uniform_exit uniform_exit:L0: applies: the tree over 'v' (float), 'id' (int)
__global__ void early_exit(float *out, const float *in) {
  TREE_HEAD
  __syncthreads();
  if (tid >= 32 * ((blockDim.x / 32 + 1) / 2))
    return;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      if (v[tid + s] > v[tid]) {
        v[tid] = v[tid + s];
        id[tid] = id[tid + s];
      }
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = id[0];
}

__global__ void early_exit_max(float *out, const float *in) {
  TREE_HEAD
  __syncthreads();
  if (tid >= 32 * ((blockDim.x / 32 + 1) / 2))
    return;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      v[tid] = fmaxf(v[tid], v[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = v[0];
}

__global__ void uniform_exit(float *out, const float *in, int rows) {
  if (blockIdx.x >= rows)
    return;
  TREE_HEAD
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      if (v[tid + s] > v[tid]) {
        v[tid] = v[tid + s];
        id[tid] = id[tid + s];
      }
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = id[0];
}
