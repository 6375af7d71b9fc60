// A library header with a kernel template in a namespace, a launcher and a
// helper, as kernel libraries write them (FlashInfer's norm.cuh).
#ifndef MYLIB_OPS_CUH
#define MYLIB_OPS_CUH
#include "util.cuh"

namespace mylib {
namespace ops {

using namespace mylib::util;

template <typename T>
__global__ __launch_bounds__(256) void scale_kernel(T *__restrict__ out,
                                                    const T *__restrict__ in,
                                                    int n) {
  // A brace in a comment { and in a string "}" must not end the body.
  const char *tag = "}";
  (void)tag;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    out[i] = T(half_of(float(in[i])) / 3.0f);
  }
}

template <typename T>
void launch_scale(T *out, const T *in, int n) {
  scale_kernel<T><<<(n + 255) / 256, 256>>>(out, in, n);
}

} // namespace ops
} // namespace mylib
#endif
