__device__ inline float quotient(float a, float b) { return a / b; }
