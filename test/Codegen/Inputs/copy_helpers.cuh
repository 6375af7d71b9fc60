__device__ inline float scale(float x) { return x * COPY_SCALE; }
