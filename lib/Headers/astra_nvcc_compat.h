/*===- astra_nvcc_compat.h - What nvcc's headers give, for Clang ---------===*
 *
 * astra-opt includes this header first (after Clang's CUDA runtime wrapper)
 * in every device-side compile. It supplies what a file built with nvcc may
 * use and Clang 22's CUDA wrappers do not provide; docs/nvcc-compat.md lists
 * each difference and its test. Nothing here redefines what Clang declares:
 * a redefinition would be a compile error, which the tests would show.
 *
 * Define ASTRA_NO_NVCC_COMPAT (--extra-arg=-DASTRA_NO_NVCC_COMPAT) to
 * compile without it.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ASTRA_NVCC_COMPAT_H
#define ASTRA_NVCC_COMPAT_H

#if defined(__CUDA__) && defined(__cplusplus) && !defined(ASTRA_NO_NVCC_COMPAT)

/* nvcc's cuda_runtime.h includes these through crt/common_functions.h and
 * crt/math_functions.h; Clang's wrapper includes only some of them. <math.h>
 * matters most: libstdc++'s math.h brings std::isfinite, std::isnan and
 * std::isinf into the global namespace, as host functions beside Clang's
 * device ones, so a host template calling isfinite(x) compiles. <time.h>
 * gives the host clock() and time(). */
#include <assert.h>
#include <math.h>
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*--- Cache-hint loads and stores (nvcc: sm_32_intrinsics.h) ---------------*
 * Clang 22 defines __ldg, __ldcg, __ldcs, __ldcv and __stwt for the built-in
 * scalar and vector types, except `unsigned long` (and `long` for __stwt).
 * __ldca, __ldlu, __stcg, __stcs and __stwb are missing altogether. The
 * __half/__nv_bfloat16 variants come with cuda_fp16.hpp/cuda_bf16.hpp. */

static_assert(sizeof(long) == 8, "astra_nvcc_compat.h assumes LP64");

#define __ASTRA_LD1(Fn, Op, T, Ptx, R, C, ...)                                 \
  inline __device__ T Fn(const T *__p) {                                       \
    R __r;                                                                     \
    asm(Op "." #Ptx " %0, [%1];" : "=" #C(__r) : "l"(__p)__VA_ARGS__);         \
    return (T)__r;                                                             \
  }
#define __ASTRA_LD2(Fn, Op, T, Ptx, R, C, ...)                                 \
  inline __device__ T Fn(const T *__p) {                                       \
    R __x, __y;                                                                \
    asm(Op ".v2." #Ptx " {%0,%1}, [%2];"                                       \
        : "=" #C(__x), "=" #C(__y)                                             \
        : "l"(__p)__VA_ARGS__);                                                \
    T __r;                                                                     \
    __r.x = (decltype(__r.x))__x;                                              \
    __r.y = (decltype(__r.y))__y;                                              \
    return __r;                                                                \
  }
#define __ASTRA_LD4(Fn, Op, T, Ptx, R, C, ...)                                 \
  inline __device__ T Fn(const T *__p) {                                       \
    R __x, __y, __z, __w;                                                      \
    asm(Op ".v4." #Ptx " {%0,%1,%2,%3}, [%4];"                                 \
        : "=" #C(__x), "=" #C(__y), "=" #C(__z), "=" #C(__w)                   \
        : "l"(__p)__VA_ARGS__);                                                \
    T __r;                                                                     \
    __r.x = (decltype(__r.x))__x;                                              \
    __r.y = (decltype(__r.y))__y;                                              \
    __r.z = (decltype(__r.z))__z;                                              \
    __r.w = (decltype(__r.w))__w;                                              \
    return __r;                                                                \
  }
#define __ASTRA_ST1(Fn, Op, T, Ptx, R, C)                                      \
  inline __device__ void Fn(T *__p, T __v) {                                   \
    asm(Op "." #Ptx " [%0], %1;" ::"l"(__p), #C((R)__v) : "memory");          \
  }
#define __ASTRA_ST2(Fn, Op, T, Ptx, R, C)                                      \
  inline __device__ void Fn(T *__p, T __v) {                                   \
    asm(Op ".v2." #Ptx " [%0], {%1,%2};" ::"l"(__p), #C((R)__v.x),            \
        #C((R)__v.y)                                                           \
        : "memory");                                                           \
  }
#define __ASTRA_ST4(Fn, Op, T, Ptx, R, C)                                      \
  inline __device__ void Fn(T *__p, T __v) {                                   \
    asm(Op ".v4." #Ptx " [%0], {%1,%2,%3,%4};" ::"l"(__p), #C((R)__v.x),      \
        #C((R)__v.y), #C((R)__v.z), #C((R)__v.w)                               \
        : "memory");                                                           \
  }

/* Every type nvcc declares the cache hints for: the type, its PTX element
 * type, the register type the asm operand has, and its constraint. */
#define __ASTRA_LONGS(X, ...)                                                  \
  X##1(__VA_ARGS__, long, s64, long, l)                                        \
  X##1(__VA_ARGS__, unsigned long, u64, unsigned long, l)
#define __ASTRA_SCALARS(X, ...)                                                \
  X##1(__VA_ARGS__, char, s8, int, r)                                          \
  X##1(__VA_ARGS__, signed char, s8, int, r)                                   \
  X##1(__VA_ARGS__, unsigned char, u8, unsigned int, r)                        \
  X##1(__VA_ARGS__, short, s16, short, h)                                      \
  X##1(__VA_ARGS__, unsigned short, u16, unsigned short, h)                    \
  X##1(__VA_ARGS__, int, s32, int, r)                                          \
  X##1(__VA_ARGS__, unsigned int, u32, unsigned int, r)                        \
  X##1(__VA_ARGS__, long long, s64, long long, l)                              \
  X##1(__VA_ARGS__, unsigned long long, u64, unsigned long long, l)            \
  X##1(__VA_ARGS__, float, f32, float, f)                                      \
  X##1(__VA_ARGS__, double, f64, double, d)                                    \
  __ASTRA_LONGS(X, __VA_ARGS__)
#define __ASTRA_VECTORS(X, ...)                                                \
  X##2(__VA_ARGS__, char2, s8, int, r)                                         \
  X##4(__VA_ARGS__, char4, s8, int, r)                                         \
  X##2(__VA_ARGS__, uchar2, u8, unsigned int, r)                               \
  X##4(__VA_ARGS__, uchar4, u8, unsigned int, r)                               \
  X##2(__VA_ARGS__, short2, s16, short, h)                                     \
  X##4(__VA_ARGS__, short4, s16, short, h)                                     \
  X##2(__VA_ARGS__, ushort2, u16, unsigned short, h)                           \
  X##4(__VA_ARGS__, ushort4, u16, unsigned short, h)                           \
  X##2(__VA_ARGS__, int2, s32, int, r)                                         \
  X##4(__VA_ARGS__, int4, s32, int, r)                                         \
  X##2(__VA_ARGS__, uint2, u32, unsigned int, r)                               \
  X##4(__VA_ARGS__, uint4, u32, unsigned int, r)                               \
  X##2(__VA_ARGS__, longlong2, s64, long long, l)                              \
  X##2(__VA_ARGS__, ulonglong2, u64, unsigned long long, l)                    \
  X##2(__VA_ARGS__, float2, f32, float, f)                                     \
  X##4(__VA_ARGS__, float4, f32, float, f)                                     \
  X##2(__VA_ARGS__, double2, f64, double, d)

/* Loads take the clobber list last; the "memory" clobber keeps __ldlu and
 * __ldcv ordered with stores, as in nvcc's definitions. */
#define __ASTRA_LDC1(Fn, Op, Clobber, T, Ptx, R, C)                            \
  __ASTRA_LD1(Fn, Op, T, Ptx, R, C, Clobber)
#define __ASTRA_LDC2(Fn, Op, Clobber, T, Ptx, R, C)                            \
  __ASTRA_LD2(Fn, Op, T, Ptx, R, C, Clobber)
#define __ASTRA_LDC4(Fn, Op, Clobber, T, Ptx, R, C)                            \
  __ASTRA_LD4(Fn, Op, T, Ptx, R, C, Clobber)
#define __ASTRA_MEMORY : "memory"

/* Missing altogether. */
__ASTRA_SCALARS(__ASTRA_LDC, __ldca, "ld.global.ca", )
__ASTRA_VECTORS(__ASTRA_LDC, __ldca, "ld.global.ca", )
__ASTRA_SCALARS(__ASTRA_LDC, __ldlu, "ld.global.lu", __ASTRA_MEMORY)
__ASTRA_VECTORS(__ASTRA_LDC, __ldlu, "ld.global.lu", __ASTRA_MEMORY)
__ASTRA_SCALARS(__ASTRA_ST, __stcg, "st.global.cg")
__ASTRA_VECTORS(__ASTRA_ST, __stcg, "st.global.cg")
__ASTRA_SCALARS(__ASTRA_ST, __stcs, "st.global.cs")
__ASTRA_VECTORS(__ASTRA_ST, __stcs, "st.global.cs")
__ASTRA_SCALARS(__ASTRA_ST, __stwb, "st.global.wb")
__ASTRA_VECTORS(__ASTRA_ST, __stwb, "st.global.wb")
/* Clang has the other types. */
__ASTRA_LDC1(__ldcg, "ld.global.cg", , unsigned long, u64, unsigned long, l)
__ASTRA_LDC1(__ldcs, "ld.global.cs", , unsigned long, u64, unsigned long, l)
__ASTRA_LDC1(__ldcv, "ld.global.cv", __ASTRA_MEMORY, unsigned long, u64,
             unsigned long, l)
__ASTRA_LONGS(__ASTRA_ST, __stwt, "st.global.wt")

#undef __ASTRA_LD1
#undef __ASTRA_LD2
#undef __ASTRA_LD4
#undef __ASTRA_ST1
#undef __ASTRA_ST2
#undef __ASTRA_ST4
#undef __ASTRA_LDC1
#undef __ASTRA_LDC2
#undef __ASTRA_LDC4
#undef __ASTRA_MEMORY
#undef __ASTRA_LONGS
#undef __ASTRA_SCALARS
#undef __ASTRA_VECTORS

/*--- __managed__ (nvcc: crt/host_defines.h) --------------------------------*
 * nvcc gives a __managed__ variable device storage in unified memory, which
 * host code may read and write too. Clang 22 honours the `managed` attribute
 * for HIP only and ignores it in CUDA (`warning: 'managed' attribute
 * ignored`), leaving a host variable that every kernel using it is refused
 * for ("reference to __host__ variable in __global__ function"). The device
 * side needs the storage only: __managed__ becomes __device__. Host code
 * that reads or writes the variable still compiles (Clang's host side sees
 * the device variable's shadow); astra-opt never runs the host code. */
#undef __managed__
#define __managed__ __device__

/*--- Host max/min (nvcc: crt/math_functions.h) -----------------------------*
 * nvcc declares the integer and floating max/min overloads __host__
 * __device__; Clang's wrappers make them device-only, so `max(a, b)` on
 * host ints fails. These are the host halves, overloaded on the target. */
#define __ASTRA_HOST_MINMAX(R, A, B)                                           \
  static inline __host__ R max(A __a, B __b) {                                 \
    return (R)__a > (R)__b ? (R)__a : (R)__b;                                  \
  }                                                                            \
  static inline __host__ R min(A __a, B __b) {                                 \
    return (R)__a < (R)__b ? (R)__a : (R)__b;                                  \
  }
#define __ASTRA_HOST_MINMAX_SIGNS(S, U)                                        \
  __ASTRA_HOST_MINMAX(S, S, S)                                                 \
  __ASTRA_HOST_MINMAX(unsigned U, unsigned U, unsigned U)                      \
  __ASTRA_HOST_MINMAX(unsigned U, S, unsigned U)                               \
  __ASTRA_HOST_MINMAX(unsigned U, unsigned U, S)
__ASTRA_HOST_MINMAX_SIGNS(int, int)
__ASTRA_HOST_MINMAX_SIGNS(long, long)
__ASTRA_HOST_MINMAX_SIGNS(long long, long long)
#undef __ASTRA_HOST_MINMAX_SIGNS
#undef __ASTRA_HOST_MINMAX

/* Floating max/min follow fmax/fmin: a NaN operand gives the other one. */
#define __ASTRA_HOST_FMINMAX(R, A, B, Max, Min)                                \
  static inline __host__ R max(A __a, B __b) { return Max((R)__a, (R)__b); }   \
  static inline __host__ R min(A __a, B __b) { return Min((R)__a, (R)__b); }
__ASTRA_HOST_FMINMAX(float, float, float, __builtin_fmaxf, __builtin_fminf)
__ASTRA_HOST_FMINMAX(double, double, double, __builtin_fmax, __builtin_fmin)
__ASTRA_HOST_FMINMAX(double, float, double, __builtin_fmax, __builtin_fmin)
__ASTRA_HOST_FMINMAX(double, double, float, __builtin_fmax, __builtin_fmin)
#undef __ASTRA_HOST_FMINMAX

/* The named integer forms, host and device in nvcc, device-only in Clang. */
static inline __host__ unsigned int umax(unsigned int __a, unsigned int __b) {
  return __a > __b ? __a : __b;
}
static inline __host__ unsigned int umin(unsigned int __a, unsigned int __b) {
  return __a < __b ? __a : __b;
}
static inline __host__ long long llmax(long long __a, long long __b) {
  return __a > __b ? __a : __b;
}
static inline __host__ long long llmin(long long __a, long long __b) {
  return __a < __b ? __a : __b;
}
static inline __host__ unsigned long long ullmax(unsigned long long __a,
                                                 unsigned long long __b) {
  return __a > __b ? __a : __b;
}
static inline __host__ unsigned long long ullmin(unsigned long long __a,
                                                 unsigned long long __b) {
  return __a < __b ? __a : __b;
}

#endif /* __CUDA__ && __cplusplus && !ASTRA_NO_NVCC_COMPAT */
#endif /* ASTRA_NVCC_COMPAT_H */
