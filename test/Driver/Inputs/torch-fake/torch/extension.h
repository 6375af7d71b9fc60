// A stand-in for torch/extension.h: it checks the defines that
// torch.utils.cpp_extension passes to an extension's nvcc compiles.
#ifndef TORCH_API_INCLUDE_EXTENSION_H
#error "TORCH_API_INCLUDE_EXTENSION_H is not defined"
#endif
#if !defined(__CUDA_NO_HALF_OPERATORS__) ||                                  \
    !defined(__CUDA_NO_HALF_CONVERSIONS__) ||                                \
    !defined(__CUDA_NO_BFLOAT16_CONVERSIONS__) ||                            \
    !defined(__CUDA_NO_HALF2_OPERATORS__)
#error "torch's __CUDA_NO_HALF*__ defines are missing"
#endif
#ifndef TORCH_EXTENSION_NAME
#error "TORCH_EXTENSION_NAME is not defined"
#endif
