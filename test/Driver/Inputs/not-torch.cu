// No torch here: astra-opt must not add torch's defines.
#if defined(TORCH_API_INCLUDE_EXTENSION_H) || defined(TORCH_EXTENSION_NAME) || \
    defined(__CUDA_NO_HALF_OPERATORS__)
#error "torch's defines where torch is not used"
#endif
__global__ void plain(float *p) { p[threadIdx.x] = 1.0f; }
