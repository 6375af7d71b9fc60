// Fuzz reproducer (test/Fuzz): vectorize-loads kept the callee name of a
// call in the loop body as a StringRef into a temporary string
// (AddressSanitizer: stack-use-after-scope in isBarrierOrCollective).
template <typename T_>
__global__ void silu_and_mul(T_* out, const T_* input, int d) {
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[i] = fancy_silu(input[i], input[d + i]);
}
