// Kernels taking a bool and structs by value, for the launch spec tests.
#include <cuda_fp16.h>

struct Inner {
  short lo;
  __half h;
};

// Padding: 3 bytes after `clamp`, 4 after `shift` (bias is 8-aligned).
struct Affine {
  float scale;
  bool clamp;
  int shift;
  double bias;
  Inner in;
  unsigned char w[3];
};

__global__ void affine(float *out, const float *x, Affine p, bool flip,
                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i] * p.scale + float(p.bias) + p.shift + p.in.lo + p.w[2];
    out[i] = flip ? -v : v;
  }
}

union Bits {
  float f;
  unsigned u;
};
struct WithPtr {
  float *data;
  int n;
};
struct Packed {
  int a : 4;
  int b : 4;
};

__global__ void bad_structs(Bits b, WithPtr w, Packed k, float *out) {
  out[0] = b.f + w.n + k.a;
}
