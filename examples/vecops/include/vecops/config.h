// Build configuration of vecops; VECOPS_BLOCK comes from the CMake target's
// compile definitions, so astra-opt must see them to parse the kernels.
#ifndef VECOPS_CONFIG_H
#define VECOPS_CONFIG_H
#ifndef VECOPS_BLOCK
#error "VECOPS_BLOCK comes from the vecops target's compile definitions"
#endif
#endif // VECOPS_CONFIG_H
