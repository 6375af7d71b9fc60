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
