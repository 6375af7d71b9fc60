// Torch through the project's own header (test/Driver/torch-option.test).
#include "ops.h"

#define ASTRA_CAT2(a, b) a##b
#define ASTRA_CAT(a, b) ASTRA_CAT2(a, b)

__global__ void ASTRA_CAT(k_, TORCH_EXTENSION_NAME)(float *p) {
  p[threadIdx.x] = 0.0f;
}
