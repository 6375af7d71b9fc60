// No #include at all: only what nvcc and Clang declare for every .cu file.
__global__ void scale(float *out, const float *in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * in[i];
}

__global__ void rowsum(float *out, const float *in, int d) {
  const float *row = in + (long)blockIdx.x * d;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < d; j += blockDim.x)
    acc += row[j];
  atomicAdd(out + blockIdx.x, acc);
}
