// CSR sparse matrix times vector: structured inputs for the generator tests.
__global__ void spmv(float *y, const int *indptr, const int *indices,
                     const float *x, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float acc = 0.0f;
  for (int e = indptr[r]; e < indptr[r + 1]; ++e)
    acc += x[indices[e]];
  y[r] = acc;
}
