// Correct: float4 accesses over the whole quads of each row's lower part
// (where the row is 16-byte aligned), a scalar tail up to the diagonal; the
// strict upper triangle stays unwritten, as in the original.
__global__ void tril_scale(float *out, const float *x, int n) {
  const long r = blockIdx.x;
  const long len = r + 1; // elements 0..r of row r
  const float *xr = x + r * n;
  float *outr = out + r * n;
  long vecEnd = 0;
  if ((reinterpret_cast<size_t>(xr) | reinterpret_cast<size_t>(outr)) % 16 ==
      0) {
    vecEnd = len / 4 * 4;
    for (long q = threadIdx.x; q < len / 4; q += blockDim.x) {
      float4 v = reinterpret_cast<const float4 *>(xr)[q];
      v.x *= 0.5f;
      v.y *= 0.5f;
      v.z *= 0.5f;
      v.w *= 0.5f;
      reinterpret_cast<float4 *>(outr)[q] = v;
    }
  }
  for (long c = vecEnd + threadIdx.x; c < len; c += blockDim.x)
    outr[c] = 0.5f * xr[c];
}
