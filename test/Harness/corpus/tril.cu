// Corpus original: the lower triangle of a square matrix scaled,
// out[r,c] = x[r,c] / 2 for c <= r. The strict upper triangle of `out` is
// left as the caller had it (an in-place mask's contract), so the harness
// sees those elements unwritten: a candidate must leave them too.
__global__ void tril_scale(float *out, const float *x, int n) {
  const long r = blockIdx.x;
  for (long c = threadIdx.x; c <= r; c += blockDim.x)
    out[r * n + c] = 0.5f * x[r * n + c];
}
