// A kernel written for 256 threads per block: its index uses the constant,
// not blockDim. Its spec (launch-fixed-block.astra.json) wrongly declares
// the block size tunable; the harness must refuse the launch with B=128.
__global__ void fixed_block(float *out, const float *in, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i >= n)
    return;
  out[i] = 2.0f * in[i];
}
