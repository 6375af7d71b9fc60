// Wrong: waits for a flag no one sets; never finishes.
#include <cuda_fp16.h>

__global__ void silu_mul(__half *out, const __half *x, int d) {
  const long t = blockIdx.x;
  volatile const __half *vx = x;
  if (threadIdx.x == 0)
    while (__half2float(vx[0]) == __half2float(vx[0]) ||
           __half2float(vx[0]) != __half2float(vx[0])) {
    }
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[t * d + i] = x[i];
}
