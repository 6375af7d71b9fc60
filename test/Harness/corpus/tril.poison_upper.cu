// Wrong: writes the harness's first poison (all bytes 0xFF) above the
// diagonal in every run. Both of its runs are then bit-identical to the
// original's first run, which is all the comparison on the device sees; its
// second run still wrote elements that the original leaves holding the
// second run's poison.
__global__ void tril_scale(float *out, const float *x, int n) {
  const long r = blockIdx.x;
  for (long c = threadIdx.x; c < n; c += blockDim.x)
    out[r * n + c] = c <= r ? 0.5f * x[r * n + c] : __int_as_float(-1);
}
