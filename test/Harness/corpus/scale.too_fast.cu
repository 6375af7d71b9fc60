// Wrong: a block returns at once when the output already holds its result
// for the block's first element (as it does when the same buffers are run
// again): correct on freshly poisoned outputs, "fast" when timed. Caught by
// the physical floor.
__global__ void scale(float *out, const float *x, long n) {
  long first = (long)blockIdx.x * blockDim.x;
  bool done = first < n && out[first] == 2.0f * x[first] + 1.0f;
  __syncthreads();
  if (done)
    return;
  for (long i = first + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    out[i] = 2.0f * x[i] + 1.0f;
}
