// A kernel taking a struct and a bool by value: every output depends on the
// struct's fields (at offsets 0, 4, 8, 16, 24 and 30, with padding between)
// and on the bool.
struct Inner {
  short lo;
  short hi;
};
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
    float v = x[i] * p.scale + float(p.bias);
    v = v + float(p.shift) + float(p.in.lo) + float(p.w[2]);
    if (p.clamp)
      v = fmaxf(v, -2.0f);
    out[i] = flip ? -v : v;
  }
}
