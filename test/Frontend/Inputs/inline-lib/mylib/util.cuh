#ifndef MYLIB_UTIL_CUH
#define MYLIB_UTIL_CUH
namespace mylib {
namespace util {
__device__ __forceinline__ float half_of(float x) { return 0.5f * x; }
} // namespace util
} // namespace mylib
#endif
