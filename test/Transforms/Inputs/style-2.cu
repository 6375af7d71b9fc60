// Kernels in one layout, for the minimal-diff tests.
#define BLOCK_ROWS 64

__global__ void rowscale(float *out, const float *in, int rows, int cols)
{
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols)
    return;
  for (int r = threadIdx.y; r < rows; r += BLOCK_ROWS) {
    float v = in[r * cols + c];
    out[r * cols + c] = v * 2.0f;
  }
}

__global__ void ratios(float *out, const float *a, const float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x    = a[i];
    float y    = b[i];
    float d1   = x / y;
    float dd2  = y / (x + 1.0f);
    float keep = x * y;
    out[i] = d1 + dd2 + keep;
  }
}

__global__ void saxpy(float *y, const float *x, float a, int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    y[i] = a * x[i] + y[i];
  }
}
