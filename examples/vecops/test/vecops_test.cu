// Checks vecops (built from the rewritten sources) against a CPU reference,
// on sizes that take the vector paths, their scalar tails and the fallbacks
// (odd lengths, misaligned pointers). Exit 0 when all match, 1 on a
// mismatch, 77 (CTest: skipped) without a GPU.
#include "vecops/vecops.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

static int Failures = 0;

#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(err_));                                  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

static float value(int i, int salt) {
  return (float)((i * 37 + salt * 11) % 101 - 50) / 25.0f;
}

static void expectNear(const char *what, int i, float got, float want,
                       float rtol, float atol) {
  if (std::fabs(got - want) <= atol + rtol * std::fabs(want))
    return;
  if (Failures++ < 10)
    std::fprintf(stderr, "%s: element %d: got %g, want %g\n", what, i, got,
                 want);
}

template <typename T> static T *toDevice(const std::vector<T> &h) {
  T *d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, h.size() * sizeof(T) + 64));
  CHECK_CUDA(
      cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T> static std::vector<T> toHost(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK_CUDA(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

static void testScaleAdd(int n, int offset) {
  std::vector<float> x(n + offset), y(n + offset);
  for (int i = 0; i < n + offset; ++i)
    x[i] = value(i, 1), y[i] = value(i, 2);
  float *dx = toDevice(x), *dy = toDevice(y);
  vecops_scale_add(dy + offset, dx + offset, 1.5f, n, 0);
  std::vector<float> got = toHost(dy, n + offset);
  for (int i = 0; i < n + offset; ++i)
    expectNear("scale_add", i, got[i], i < offset ? y[i] : 1.5f * x[i] + y[i],
               1e-6f, 1e-6f);
  cudaFree(dx);
  cudaFree(dy);
}

static void testSiluMul(int T, int d) {
  std::vector<__half> in((size_t)T * 2 * d);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = __float2half(value((int)i, 3));
  __half *din = toDevice(in), *dout = nullptr;
  CHECK_CUDA(cudaMalloc(&dout, (size_t)T * d * sizeof(__half)));
  vecops_silu_mul(dout, din, T, d, 0);
  std::vector<__half> got = toHost(dout, (size_t)T * d);
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < d; ++i) {
      float g = __half2float(in[(size_t)t * 2 * d + i]);
      float u = __half2float(in[(size_t)t * 2 * d + d + i]);
      expectNear("silu_mul", t * d + i, __half2float(got[(size_t)t * d + i]),
                 g / (1.0f + std::exp(-g)) * u, 2e-3f, 1e-3f);
    }
  cudaFree(din);
  cudaFree(dout);
}

static void testRmsNorm(int T, int d) {
  std::vector<float> in((size_t)T * d), w(d);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = value((int)i, 4);
  for (int i = 0; i < d; ++i)
    w[i] = value(i, 5);
  float *din = toDevice(in), *dw = toDevice(w), *dout = nullptr;
  CHECK_CUDA(cudaMalloc(&dout, in.size() * sizeof(float)));
  vecops_rms_norm(dout, din, dw, 1e-6f, T, d, 0);
  std::vector<float> got = toHost(dout, in.size());
  for (int t = 0; t < T; ++t) {
    double sum = 0;
    for (int i = 0; i < d; ++i)
      sum += (double)in[(size_t)t * d + i] * in[(size_t)t * d + i];
    float scale = 1.0f / std::sqrt((float)(sum / d) + 1e-6f);
    for (int i = 0; i < d; ++i)
      expectNear("rms_norm", t * d + i, got[(size_t)t * d + i],
                 in[(size_t)t * d + i] * scale * w[i], 1e-4f, 1e-5f);
  }
  cudaFree(din);
  cudaFree(dw);
  cudaFree(dout);
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("vecops_test: no GPU, skipped\n");
    return 77;
  }
  for (int n : {1, 7, 1000, 4099, 1 << 20})
    for (int offset : {0, 1})
      testScaleAdd(n, offset);
  for (int d : {1, 7, 4096, 4097})
    testSiluMul(3, d);
  for (int d : {1, 5, 4096, 4099})
    testRmsNorm(4, d);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("vecops_test: %s (%d mismatches)\n", Failures ? "FAILED" : "ok",
              Failures);
  return Failures ? 1 : 0;
}
