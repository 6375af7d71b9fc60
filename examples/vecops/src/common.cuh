// Helpers shared by the vecops kernels (a quoted include beside them).
#ifndef VECOPS_COMMON_CUH
#define VECOPS_COMMON_CUH
#include "vecops/config.h"

static inline int vecops_grid(int n, int max_blocks) {
  int blocks = (n + VECOPS_BLOCK - 1) / VECOPS_BLOCK;
  return blocks < 1 ? 1 : (blocks > max_blocks ? max_blocks : blocks);
}
#endif // VECOPS_COMMON_CUH
