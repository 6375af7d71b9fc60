// vecops: a small CUDA library whose kernels are shipped as astra-opt
// rewrote and proved them (see ../README.md).
#ifndef VECOPS_VECOPS_H
#define VECOPS_VECOPS_H

#include <cuda_fp16.h>
#include <cuda_runtime.h>

/// y[i] = a * x[i] + y[i] for i < n.
void vecops_scale_add(float *y, const float *x, float a, int n,
                      cudaStream_t stream);

/// out[t][i] = silu(in[t][i]) * in[t][d + i] for T rows of 2*d halves.
void vecops_silu_mul(__half *out, const __half *in, int T, int d,
                     cudaStream_t stream);

/// out[t][i] = in[t][i] * w[i] / sqrt(mean(in[t]^2) + eps), T rows of d.
void vecops_rms_norm(float *out, const float *in, const float *w, float eps,
                     int T, int d, cudaStream_t stream);

#endif // VECOPS_VECOPS_H
