// A kernel template in a namespace, instantiated with an unsigned and a
// function template argument, as libraries write them (FlashInfer's
// act_and_mul_kernel<T, silu>, RMSNormKernel<8, T>).
#include <cuda_fp16.h>

__device__ float twice(const float &x) { return 2.0f * x; }

namespace lib {
namespace ops {
template <unsigned VEC, typename T, float (*F)(const float &)>
__global__ void apply(T *__restrict__ out, const T *__restrict__ in, int n) {
  for (int i = (blockIdx.x * blockDim.x + threadIdx.x) * VEC; i < n;
       i += gridDim.x * blockDim.x * VEC)
    for (unsigned j = 0; j < VEC && i + j < n; ++j)
      out[i + j] = T(F(float(in[i + j])) / 3.0f);
}
} // namespace ops
} // namespace lib

template __global__ void lib::ops::apply<4, __half, twice>(__half *__restrict__,
                                                           const __half *__restrict__,
                                                           int);
