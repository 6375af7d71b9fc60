#pragma once
struct Coord {
  unsigned row, col;
  __device__ Coord() : row(blockIdx.y), col(threadIdx.x) {}
};
