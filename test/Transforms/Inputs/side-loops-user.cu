// Loops the user wrote in an else branch, next to a then branch that holds
// a comment of the user's that starts like a marker, and (after
// vectorize-loads at L0) a rewrite's guard nested in the then branch.
__global__ void k(float *out, const float *in, int d, int mode) {
  if (mode == 0) {
    // astra-opt tried unroll here; keep this path simple
    for (int i = threadIdx.x; i < d; i += blockDim.x) {
      out[i] = in[i];
    }
  } else {
    for (int i = threadIdx.x; i < d; i += blockDim.x)
      out[i] = in[i] * 2.0f;
  }
}
