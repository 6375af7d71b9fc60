// A project header found only through the compile database's -I.
#pragma once
#ifndef PROJ_SCALE
#error "PROJ_SCALE comes from the compile database's -D"
#endif
namespace proj {
__device__ inline float gelu(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}
} // namespace proj
