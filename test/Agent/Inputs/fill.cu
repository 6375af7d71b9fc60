// No catalogue rewrite applies: no loop, no global thread index, no reads, no math.
__global__ void fill(float *out, int n) {
  const int i = threadIdx.x;
  if (i < n)
    out[2 * i] = 1.0f;
}
