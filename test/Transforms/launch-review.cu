// launch:block= refuses the kernels a review found it relaunched wrongly
// (/work/review-unroll, cases 06-10): a __shared__ array with the old block's
// size, an index that writes the old block as a literal in a kernel that
// never reads blockDim, dynamic shared memory bytes passed by the launch,
// and a constant or template parameter that is the block size and also a
// row length. A kernel whose constant only sizes a shared array and starts
// a tree is still rewritten.
// RUN: not %astra-opt --apply=launch:kernel=rsum,block=512 %s 2>&1 | FileCheck %s --check-prefix=RSUM
// RUN: not %astra-opt --apply=launch:kernel=acc,block=512 %s 2>&1 | FileCheck %s --check-prefix=ACC
// RUN: not %astra-opt --apply=launch:kernel=dsum,block=512 %s 2>&1 | FileCheck %s --check-prefix=DSUM
// RUN: not %astra-opt --apply=launch:kernel=rowscale,block=512 %s 2>&1 | FileCheck %s --check-prefix=ROW
// RUN: not %astra-opt --apply=launch:kernel=trow,block=512,template-arg=0 %s 2>&1 | FileCheck %s --check-prefix=TROW
// RUN: %astra-opt --apply=launch:kernel=tree,block=512 %s | FileCheck %s --check-prefix=TREE

// RSUM: note: launch of rsum: the kernel writes the old block size 256 as a literal at {{[0-9]+}}:22 (an array size): it may depend on that block
__global__ void __launch_bounds__(256) rsum(float *out, const float *in, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
void run_rsum(float *out, const float *in, int n) {
  rsum<<<(n + 255) / 256, 256>>>(out, in, n);
}

// ACC: note: launch of acc: the kernel writes the old block size 256 as a literal at {{[0-9]+}}:24 and never reads blockDim
__global__ void acc(float *out, const float *in, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) out[i] += in[i];
}
void run_acc(float *out, const float *in, int n) {
  acc<<<(n + 255) / 256, 256>>>(out, in, n);
}

// DSUM: note: launch of dsum: the launch at {{[0-9]+}}:3 passes bytes of dynamic shared memory ('256 * sizeof(float)') for the kernel's extern __shared__ 'sm', which a new block does not resize
__global__ void dsum(float *out, const float *in, int n) {
  extern __shared__ float sm[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sm[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int k = 0; k < blockDim.x; ++k) t += sm[k];
    out[blockIdx.x] = t;
  }
}
void run_dsum(float *out, const float *in, int n) {
  dsum<<<(n + 255) / 256, 256, 256 * sizeof(float)>>>(out, in, n);
}

// ROW: note: launch of rowscale: the block size 'kRow' is also used at {{[0-9]+}}:18 for something other than __launch_bounds__, a __shared__ array size, a loop's start, bound or step or a comparison with threadIdx (a row length, a stride)
constexpr int kRow = 256;  // one thread per column of a row
__global__ void __launch_bounds__(kRow) rowscale(float *x, const float *s) {
  x[blockIdx.x * kRow + threadIdx.x] *= s[blockIdx.x];
}
void run_rowscale(float *x, const float *s, int rows) { rowscale<<<rows, kRow>>>(x, s); }

// TROW: note: launch of trow: the block size 'BLOCK' is also used at {{[0-9]+}}:18 for something other than __launch_bounds__
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) trow(float *x, const float *s) {
  x[blockIdx.x * BLOCK + threadIdx.x] *= s[blockIdx.x];
}
template __global__ void trow<256>(float *, const float *);
void run_trow(float *x, const float *s, int rows) { trow<256><<<rows, 256>>>(x, s); }

// TREE: constexpr int kBlock = 512;
// TREE: tree<<<blocks, kBlock>>>(out, in);
constexpr int kBlock = 256;
__global__ void __launch_bounds__(kBlock) tree(float *out, const float *in) {
  __shared__ float s[kBlock];
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int k = kBlock / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
void run_tree(float *out, const float *in, int blocks) { tree<<<blocks, kBlock>>>(out, in); }
