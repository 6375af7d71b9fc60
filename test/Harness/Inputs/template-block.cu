// A kernel template whose block size is its template parameter: one block
// sums one row through a shared-memory tree written for BLOCK threads. Its
// spec (template-block.astra.json) names the instantiation row_sum<128> and
// declares B tunable; a new block size is a new instantiation
// (launch:template-arg=0), which the harness runs in place of row_sum<128>.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    row_sum(float *out, const float *in, int cols) {
  __shared__ float s[BLOCK];
  const float *row = in + (long)blockIdx.x * cols;
  float acc = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    acc += row[c];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int w = BLOCK / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w)
      s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}

template __global__ void row_sum<128>(float *, const float *, int);
