// A packed 16-byte element loop (issue 15): eight floats per thread, read
// as two 16-byte loads into a union, scaled into the register array 'v',
// then a dot product with 'w'. Clang unrolls both constant-trip loops fully
// and 'v' stays in registers; '#pragma unroll 4' on either loop leaves 'v'
// indexed by a run-time value, in local memory.
__global__ void scale_dot8(float *out, const float *in, const float *w,
                           float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float4 *in4 = reinterpret_cast<const float4 *>(in);
  union {
    float4 q[2];
    float f[8];
  } p;
  p.q[0] = in4[2 * i];
  p.q[1] = in4[2 * i + 1];
  float v[8];
  for (int j = 0; j < 8; ++j)
    v[j] = p.f[j] * s;
  float acc = 0.0f;
  for (int j = 0; j < 8; ++j)
    acc += v[j] * w[j];
  out[i] = acc;
}

// The trip count is a template parameter: constant in each instantiation.
template <int VEC>
__global__ void scale_vec(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v[VEC];
  for (int j = 0; j < VEC; ++j)
    v[j] = in[i * VEC + j];
  for (int j = VEC - 1; j >= 0; --j)
    out[i * VEC + j] = v[j] * 2.0f;
}
template __global__ void scale_vec<4>(float *, const float *, int);

// A run-time trip count and no local array: the usual default, factor 4.
__global__ void axpy(float *y, const float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] += a * x[i];
}
