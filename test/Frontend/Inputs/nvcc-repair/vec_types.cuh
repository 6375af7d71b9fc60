// A packed vector type in the style of LLM-serving kernel libraries: a cast
// between element types is a member template of a class template, called
// from a dependent context without the `template` keyword (also through an
// object), and a template no kernel instantiates names a dependent type
// without `typename`. nvcc (EDG) accepts all three (it checks a template's
// body when it instantiates it); Clang does not.
#pragma once
#include <cuda_fp16.h>
#include <stddef.h>

namespace pack {

template <typename Dst, typename Src> struct converter {
  template <size_t N>
  __device__ __forceinline__ static void cast(Dst *dst, const Src *src) {
#pragma unroll
    for (size_t i = 0; i < N; ++i)
      dst[i] = static_cast<Dst>(src[i]);
  }
};

template <> struct converter<float, __half> {
  template <size_t N>
  __device__ __forceinline__ static void cast(float *dst, const __half *src) {
#pragma unroll
    for (size_t i = 0; i < N; ++i)
      dst[i] = __half2float(src[i]);
  }
};

template <> struct converter<__half, float> {
  template <size_t N>
  __device__ __forceinline__ static void cast(__half *dst, const float *src) {
#pragma unroll
    for (size_t i = 0; i < N; ++i)
      dst[i] = __float2half(src[i]);
  }
};

template <typename T, size_t N> struct vec {
  typedef T value_type;
  T data[N];
  __device__ __forceinline__ T *ptr() { return data; }
  __device__ __forceinline__ T &operator[](size_t i) { return data[i]; }
  __device__ __forceinline__ void load(const T *p) {
#pragma unroll
    for (size_t i = 0; i < N; ++i)
      data[i] = p[i];
  }
  __device__ __forceinline__ void store(T *p) const {
#pragma unroll
    for (size_t i = 0; i < N; ++i)
      p[i] = data[i];
  }
  template <typename U>
  __device__ __forceinline__ void cast_from(const vec<U, N> &src);
};

// The call nvcc accepts: `converter<...>::cast<N>(...)` needs `template`
// before `cast` in standard C++.
template <typename Src, typename Dst, size_t N>
__device__ __forceinline__ void cast_impl(vec<Dst, N> &dst,
                                          const vec<Src, N> &src) {
  converter<Dst, Src>::cast<N>(dst.ptr(),
                               const_cast<vec<Src, N> *>(&src)->ptr());
}

template <typename T, size_t N>
template <typename U>
__device__ __forceinline__ void vec<T, N>::cast_from(const vec<U, N> &src) {
  cast_impl(*this, src);
}

// A dependent member type without `typename`, in a template nothing here
// instantiates.
template <typename V>
__device__ __forceinline__ float sum_of(V &v, size_t n) {
  V::value_type first = v[0];
  float s = static_cast<float>(first);
  for (size_t i = 1; i < n; ++i)
    s += static_cast<float>(v[i]);
  return s;
}

// A member template called through an object of dependent type without
// `template` (as FlashInfer's prefill calls `smem.load_128b_async<...>(...)`).
template <typename T, size_t N> struct strided_reader {
  template <size_t Stride>
  __device__ __forceinline__ void read(vec<T, N> &v, const T *p) const {
#pragma unroll
    for (size_t i = 0; i < N; ++i)
      v[i] = p[i * Stride];
  }
};

template <size_t Stride, typename R, typename V, typename T>
__device__ __forceinline__ void gather(const R &r, V &v, const T *p) {
  r.read<Stride>(v, p);
}

} // namespace pack
