// One element per thread over a single array: vectorize-loads' per-thread
// form takes 16-byte packs behind an alignment guard on the two base
// pointers only, so every n takes the vector path and the last n % 4
// elements are the scalar tail's.
__global__ void scale_per_thread(float *out, const float *in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = a * in[i];
}
