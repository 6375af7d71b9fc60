// The library's kernel, instantiated as its launcher does.
#include <mylib/ops.cuh> // astra-inline: mylib::ops scale_kernel

template __global__ void mylib::ops::scale_kernel<float>(float *__restrict__,
                                                        const float *__restrict__,
                                                        int);
