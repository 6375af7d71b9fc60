// gather_rows: gather the feature rows of a mini-batch's nodes from the full
// node-feature table (x[n_id] in PyG / DGL mini-batch GNN training).
//
//     out[i, f] = x[index[i], f]        for i < num_rows, f < feat_dim
//
// Layout (row-major, contiguous):
//     x      [N, feat_dim]          f32, the feature table of the whole graph
//     index  [num_rows]             int64, node ids in [0, N)
//     out    [num_rows, feat_dim]   f32
//
// Launch: one output element per thread, a 1-D grid of
// ceil_div(num_rows * feat_dim, 256) blocks of 256 threads (64-bit flattened
// index); threads past the end do nothing.
//
// Shapes in gather_rows.astra.json.  The graph has N = 2,449,029 nodes (the
// size of ogbn-products) with 128-dim f32 features: a 1.25 GB table.  A
// GraphSAGE mini-batch with 1024 seed nodes and fanouts (15, 10, 5) (hop 1
// samples 15 neighbours per node, hop 2 samples 10, hop 3 samples 5), counted
// with no deduplication (an upper bound) and in the block (message flow graph)
// form, where every destination node of a layer is also one of its sources
// and every node of a layer samples its neighbours:
//     layer 3: 1,024 dst  <- 1,024 + 1,024*15 = 16,384 src
//     layer 2: 16,384 dst <- 16,384 + 16,384*10 = 180,224 src
//     layer 1: 180,224 dst <- 180,224 + 180,224*5 = 1,081,344 src
// so the input features of one batch are a gather of 1,081,344 rows.
// (Sampling only from the newest frontier instead gives 1,024 seeds, 15,360
// hop-1, 153,600 hop-2 and 768,000 hop-3 nodes, 937,984 in all: the same
// scale.)
//     num_rows = 1,024       the seed nodes only
//     num_rows = 16,384      the sources of the last layer
//     num_rows = 180,224     the sources of the middle layer
//     num_rows = 1,081,344   the whole batch's input features (out 553 MB)
// Index values are drawn uniformly from [0, N), with repeats (a sampler
// deduplicates, so real batches have none; repeats only make the gather cheaper).
// Tolerance: 0 (a copy is exact).
// Bytes (the spec's "bytes": the fewest bytes the kernel must move, from
// which the harness computes its physical floor and achieved GB/s): out
// n*F*4 + index n*8 + the rows of x really read, F*4 bytes each, once per
// distinct id.  With n ids uniform in [0, N) the expected number of distinct
// rows is N*(1 - (1 - 1/N)^n) (874,192 at the largest shape).  The spec
// counts n*N/(N+n) rows (750,131), a lower bound on that expectation
// (1 - (1-1/N)^n >= 1 - e^(-n/N) >= (n/N) / (1 + n/N)), 124,061 rows below it,
// while the count of one draw varies by about a thousand rows (its variance
// is at most its mean, so its sd is below 935).  At the largest shape:
// 946.4 MB counted, about 1,009.9 MB really moved, 1,816.2 MB for every
// buffer whole (the floor must not exceed what a correct kernel moves).

#include <cuda_runtime.h>
#include <stdint.h>

__global__ void gather_rows(float* out, const int64_t* index, const float* x,
                            int num_rows, int feat_dim) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (int64_t)num_rows * feat_dim) return;

  const int64_t row = idx / feat_dim;
  const int64_t col = idx % feat_dim;
  out[idx] = x[index[row] * feat_dim + col];
}
