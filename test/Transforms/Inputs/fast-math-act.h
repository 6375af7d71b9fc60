// An activation defined in a project header: fast-math edits only the input
// file, so its math is listed as not rewritable.
__device__ __forceinline__ float header_silu(const float &x) {
  return x / (1.0f + expf(-x));
}
