// spmm_csr: sparse (CSR, weighted) times dense matrix product, the
// neighbourhood aggregation of a GCN-style layer on one sampled block
// (torch.sparse.mm / cuSPARSE SpMM with a row-major dense operand).
//
//     out[r, c] = sum_{e in indptr[r] .. indptr[r+1])  values[e] * dense[indices[e], c]
//
// for r < num_rows, c < feat_dim, summed in f32 in edge order; an empty row
// gives 0.
//
// Layout:
//     indptr   [num_rows + 1]         int64, non-decreasing, indptr[0] = 0
//     indices  [nnz]                  int64, column (source node) ids
//     values   [nnz]                  f32, edge weights (e.g. normalized
//                                     adjacency), positive
//     dense    [num_src, feat_dim]    f32, row-major
//     out      [num_rows, feat_dim]   f32, row-major
//
// Launch: 2-D blocks of (32, 8) threads: threadIdx.x walks 32 consecutive
// columns of a row, threadIdx.y picks one of 8 rows;
//     grid = (ceil_div(num_rows, 8), ceil_div(feat_dim, 32))
// (rows on grid.x, so the row count is not limited to 65535 * 8).  Threads
// past the end of the matrix do nothing.
//
// Shapes in spmm_csr.astra.json: the blocks of a GraphSAGE-style mini-batch
// with 1024 seeds and fanouts (15, 10, 5), feature dim 128 and hidden 256,
// counted with no deduplication, every destination node of a layer being
// also one of its sources and sampling its own neighbours:
//     R = 1,       S = 16,        deg 15     one seed (online inference),
//                                            input features of dim 128
//     R = 1,024,   S = 16,384,    deg 15     layer 3: 1024*15 sampled, hidden 256
//     R = 16,384,  S = 180,224,   deg 1..10  layer 2: 16,384*10 sampled,
//                                            hidden 256, nodes with fewer
//                                            neighbours than the fanout
//     R = 180,224, S = 1,081,344, deg 5      layer 1: 180,224*5 sampled, input
//                                            features of dim 128 (dense 553 MB,
//                                            out 92 MB)
// The indices and values buffers are sized R * max_degree (the most edges the
// indptr generator can produce); ids are uniform in [0, S).
// Tolerance: rtol 1e-5, atol 1e-5 (f32; the sum order is fixed, atol covers
// sums that cancel to near zero).
// Bytes (the spec's "bytes": the fewest bytes the kernel must move, from
// which the harness computes its physical floor and achieved GB/s): out
// R*F*4 + indptr (R+1)*8 + an (id, value) pair of 8 + 4 bytes per edge, at
// least e = R*min_degree edges + the rows of dense really read, F*4 bytes
// each, once per distinct id.  With e ids uniform in [0, S) the expected
// number of distinct rows is S*(1 - (1 - 1/S)^e) (611,394 at the largest
// shape); the spec counts e*S/(S+e) (491,520), a lower bound on that
// expectation (1 - (1-1/S)^e >= 1 - e^(-e/S) >= (e/S) / (1 + e/S)), far below
// it compared with how much one draw varies (sd below 800).  At the largest
// shape: 356.2 MB counted, about 417.6 MB really moved, 658.2 MB for every
// buffer whole.  On the deg 1..10 shape only the guaranteed R*1 edges are
// counted.

#include <cuda_runtime.h>
#include <stdint.h>

__global__ void spmm_csr(float* out, const int64_t* indptr,
                         const int64_t* indices, const float* values,
                         const float* dense, int num_rows, int feat_dim) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  const int col = blockIdx.y * blockDim.x + threadIdx.x;
  if (row >= num_rows || col >= feat_dim) return;

  float acc = 0.0f;
  for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
    acc += values[e] * dense[indices[e] * feat_dim + col];
  }
  out[(int64_t)row * feat_dim + col] = acc;
}
