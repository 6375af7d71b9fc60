// Corpus original: out[i] = 2 x[i] + 1 over a large f32 vector (256 MB in,
// 256 MB out): bandwidth-bound, far above the launch overhead. A fixed grid
// strides over the vector.
__global__ void scale(float *out, const float *x, long n) {
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    out[i] = 2.0f * x[i] + 1.0f;
}
