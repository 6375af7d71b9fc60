// Kernels for vectorize-host-emulation.test: no CUDA includes and no
// barriers, so the driver can run them (original and rewritten) on the host,
// one thread after another. Values are small integers: every result is exact.

// Block per row, reading the two halves of a row.
__global__ void rows(float *__restrict__ out, const float *__restrict__ in,
                     int d) {
  const int r = blockIdx.x;
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[r * d + i] = in[r * 2 * d + i] * 2.0f + in[r * 2 * d + d + i];
}

// Grid-stride, in place.
__global__ void axpy(float *y, const float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// Strided rows with a runtime column stride (vectorized only when cs == 1).
__global__ void gather(int *out, const int *in, long rs, long cs, int d) {
  const long t = blockIdx.x;
  for (int c = threadIdx.x; c < d; c += blockDim.x)
    out[t * d + c] = in[t * rs + c * cs] + 1;
}

// One thread walks a whole row: a sequential loop with a reduction.
__global__ void rowsum(float *partial, float *out, const float *in, int d) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int i = 0; i < d; ++i) {
    s += in[r * d + i];
    out[r * d + i] = in[r * d + i] * 3.0f;
  }
  partial[r] = s;
}

// Per-thread partial sums and maxima of a block-stride loop (which thread
// holds which partial changes; the block's total and maximum must not).
__global__ void blocksum(float *psum, float *pmax, const float *in, int n) {
  float s = 0.0f;
  float m = -1000.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    s += in[blockIdx.x * n + i];
    m = fmaxf(m, in[blockIdx.x * n + i]);
  }
  psum[blockIdx.x * blockDim.x + threadIdx.x] = s;
  pmax[blockIdx.x * blockDim.x + threadIdx.x] = m;
}

// A store on some iterations only: the vector is loaded and written back.
__global__ void relu(float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    if (x[i] < 0.0f)
      x[i] = 0.0f;
}

// Templated over the element type.
template <typename T>
__global__ void scale(T *out, const T *__restrict__ in, T s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = in[i] * s;
}
template __global__ void scale<float>(float *, const float *, float, int);
template __global__ void scale<double>(double *, const double *, double, int);
template __global__ void scale<short>(short *, const short *, short, int);

// Widened forms. One element per thread, the two halves of a row on grid.y.
__global__ void act(float *out, const float *in, int d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const long t = blockIdx.y;
  if (i >= d)
    return;
  float g = in[t * 2 * d + i];
  float u = in[t * 2 * d + d + i];
  out[t * d + i] = g * 3.0f - u;
}

// One element per thread; row and column from the flat index.
__global__ void gatherRows(float *out, const long *index, const float *x,
                           int rows, int f) {
  const long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long)rows * f)
    return;
  const long row = idx / f;
  const long col = idx % f;
  out[idx] = x[index[row] * f + col];
}

// One element per thread on x, rows on y, a sequential edge loop.
__global__ void spmm(float *out, const long *indptr, const long *indices,
                     const float *values, const float *dense, int rows,
                     int f) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  const int col = blockIdx.y * blockDim.x + threadIdx.x;
  if (row < rows && col < f) {
    float acc = 0.0f;
    for (long e = indptr[row]; e < indptr[row + 1]; ++e)
      acc += values[e] * dense[indices[e] * f + col];
    out[(long)row * f + col] = acc;
  }
}

// A block-stride feature loop around an edge loop (mean aggregation).
__global__ void segmean(float *out, const int *indptr, const int *indices,
                        const float *x, int f) {
  const int r = blockIdx.x;
  const int begin = indptr[r];
  const int end = indptr[r + 1];
  const int deg = end - begin;
  for (int j = threadIdx.x; j < f; j += blockDim.x) {
    float sum = 0.0f;
    for (int e = begin; e < end; ++e)
      sum += x[(long)indices[e] * f + j];
    out[(long)r * f + j] = deg > 0 ? sum / deg : 0.0f;
  }
}

// A grid-stride scatter with float atomics.
__global__ void scatter(float *out, const long *index, const float *src,
                        int edges, int f) {
  const long n = (long)edges * f;
  for (long idx = (long)blockIdx.x * blockDim.x + threadIdx.x; idx < n;
       idx += (long)gridDim.x * blockDim.x) {
    long e = idx / f;
    long c = idx % f;
    atomicAdd(&out[index[e] * f + c], src[idx]);
  }
}

// The mean of the neighbours' rows beside the node's own row (GraphSAGE):
// one pointer stored at offsets the loop's extent apart.
__global__ void sageConcat(float *out, const int *indptr, const int *indices,
                           const float *x, int f) {
  const int r = blockIdx.x;
  const int begin = indptr[r];
  const int end = indptr[r + 1];
  for (int j = threadIdx.x; j < f; j += blockDim.x) {
    float sum = 0.0f;
    for (int e = begin; e < end; ++e)
      sum += x[(long)indices[e] * f + j];
    out[(long)r * 2 * f + j] = end > begin ? sum / (end - begin) : 0.0f;
    out[(long)r * 2 * f + f + j] = x[(long)r * f + j];
  }
}

// Two offsets a run-time distance apart: the guard checks stride >= n
// (with stride 0, both vector loads would see the old values).
__global__ void twoAt(float *out, const float *x, int n, int stride) {
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    out[j] += x[j];
    out[stride + j] += 2.0f * x[j];
  }
}

// One element per thread of a block (merge_attn_states): per-block values
// before the check, a statement after it, an exit condition.
__global__ void blockElem(float *out, float *tag, const float *a,
                          const float *b, const float *w, int d, int skip) {
  const int row = blockIdx.x;
  const int i = threadIdx.x;
  const float s = w[row] * 2.0f;
  if (i < d && row != skip) {
    const long off = (long)row * d + i;
    out[off] = a[off] * s + b[off];
  }
  if (i == 0)
    tag[row] = s;
}

// One element per thread of a block over rows `ld` apart: the row length
// need not divide into packs, so the scalar tail runs.
__global__ void blockRow(float *out, float *tag, const float *a,
                         const float *w, int d, int ld) {
  const int row = blockIdx.x;
  const int i = threadIdx.x;
  const float s = w[row] + 1.0f;
  if (i < d) {
    out[(long)row * ld + i] = a[(long)row * ld + i] * s;
  }
  if (i == 0)
    tag[row] = s;
}

// A block-stride feature loop with a sequential inner loop over a row's
// neighbours (segment_mean_csr): the original launch has a thread per
// feature; the any-block form of the loop runs under any block.
__global__ void blockLoop(float *out, float *tag, const int *idx,
                          const float *x, int deg, int f) {
  const int r = blockIdx.x;
  for (int c = threadIdx.x; c < f; c += blockDim.x) {
    float s = 0.0f;
    for (int e = 0; e < deg; ++e)
      s += x[(long)idx[r * deg + e] * f + c];
    out[(long)r * f + c] = s * 0.5f;
  }
  if (threadIdx.x == 0)
    tag[r] = 1.0f + r;
}
