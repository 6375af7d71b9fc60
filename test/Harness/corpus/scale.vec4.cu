// Correct variant: float4 accesses (four elements a thread) when both
// pointers are 16-byte aligned, then a scalar tail; the original loop when
// they are not.
__global__ void scale(float *out, const float *x, long n) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  long stride = (long)gridDim.x * blockDim.x;
  bool aligned = ((reinterpret_cast<unsigned long>(out) |
                   reinterpret_cast<unsigned long>(x)) & 15) == 0;
  long head = 0;
  if (aligned) {
    long nv = n / 4;
    for (long v = t; v < nv; v += stride) {
      float4 a = reinterpret_cast<const float4 *>(x)[v];
      a.x = 2.0f * a.x + 1.0f;
      a.y = 2.0f * a.y + 1.0f;
      a.z = 2.0f * a.z + 1.0f;
      a.w = 2.0f * a.w + 1.0f;
      reinterpret_cast<float4 *>(out)[v] = a;
    }
    head = 4 * nv;
  }
  for (long i = head + t; i < n; i += stride)
    out[i] = 2.0f * x[i] + 1.0f;
}
