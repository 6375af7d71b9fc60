// A kernel on the packed vector type of vec_types.cuh, which nvcc accepts and
// Clang rejects until the header is repaired in memory.
#include <cuda_runtime.h>
#include "vec_types.cuh"

template <typename T>
__global__ void scale_silu(T *__restrict__ out, const T *__restrict__ in,
                           float a, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  if (i + 8 > n)
    return;
  pack::vec<T, 8> x;
  pack::gather<1>(pack::strided_reader<T, 8>(), x, in + i);
  pack::vec<float, 8> f;
  f.cast_from(x);
#pragma unroll
  for (int j = 0; j < 8; ++j)
    f[j] = f[j] * a / (1.f + expf(-f[j]));
  x.cast_from(f);
  x.store(out + i);
}

template __global__ void scale_silu<__half>(__half *, const __half *, float,
                                            int);
