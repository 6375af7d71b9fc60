template <typename T_>
__global__ void silu_and_mul(T_* out, const T_* input, long d) {
  const int64_t token = blockIdx.x;
  for (long i = threadIdx.x; i < d; i += blockDim.x) {
    float g = static_cast<float>(input[token * 2 * d + i]);
    float u = static_cast<float>(input[token * 2 * d + d + i]);
    out[token * d + i] = static_cast<T_>(g / (1.0f + expf(-g)) * u);
  }
}
