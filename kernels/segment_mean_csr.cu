// segment_mean_csr: mean aggregation of neighbour features over a CSR graph,
// the "mean" aggregator of a GraphSAGE layer on one sampled block.
//
// For every destination node r < num_dst, with its neighbours
// indices[indptr[r] .. indptr[r+1]) and degree deg = indptr[r+1] - indptr[r]:
//
//     out[r, f] = (1/deg) * sum_{e in row r} x[indices[e], f]   (deg > 0)
//     out[r, f] = 0                                             (deg = 0)
//
// summed in f32 in edge order.
//
// Layout:
//     indptr   [num_dst + 1]       int32, non-decreasing, indptr[0] = 0
//     indices  [nnz]               int32, source node ids in [0, num_src)
//     x        [num_src, feat_dim] f32, row-major
//     out      [num_dst, feat_dim] f32, row-major
//
// Launch: grid = num_dst (one block per destination node), block = feat_dim
// threads striding over the features: for (f = threadIdx.x; f < feat_dim;
// f += blockDim.x); each thread walks the node's edge list.
//
// Shapes in segment_mean_csr.astra.json: the blocks of a GraphSAGE mini-batch
// with 1024 seeds and fanouts (15, 10, 5), feature dim 128 and hidden 256,
// counted with no deduplication, every destination node of a layer being
// also one of its sources and sampling its own neighbours:
//     R = 1,       S = 16,        deg 15      one seed (online inference),
//                                             hidden 256
//     R = 1,024,   S = 16,384,    deg 15      layer 3: 1024 seeds, 1024*15
//                                             sampled neighbours, hidden 256
//     R = 16,384,  S = 180,224,   deg 0..10   layer 2: 16,384*10 sampled,
//                                             hidden 256; nodes with fewer
//                                             neighbours than the fanout,
//                                             some with none
//     R = 180,224, S = 1,081,344, deg 5       layer 1: 180,224*5 sampled,
//                                             input features of dim 128
//                                             (x 553 MB, out 92 MB)
// The indices buffer is sized R * max_degree (the most edges the indptr
// generator can produce); ids are uniform in [0, S).
// Tolerance: rtol 1e-5, atol 1e-5 (f32; the sum order is fixed, atol covers
// means that cancel to near zero).
// Bytes (the spec's "bytes": the fewest bytes the kernel must move, from
// which the harness computes its physical floor and achieved GB/s): out
// R*F*4 + indptr (R+1)*4 + the column ids of the edges, at least
// e = R*min_degree of them, 4 bytes each + the rows of x really read, F*4
// bytes each, once per distinct id.  With e ids uniform in [0, S) the
// expected number of distinct rows is S*(1 - (1 - 1/S)^e) (611,394 at the
// largest shape); the spec counts e*S/(S+e) (491,520), a lower bound on that
// expectation (1 - (1-1/S)^e >= 1 - e^(-e/S) >= (e/S) / (1 + e/S)), far below
// it compared with how much one draw varies (sd below 800).  At the largest
// shape: 348.3 MB counted, about 409.6 MB really moved, 650.2 MB for every
// buffer whole.  On the deg 0..10 shape the edge count is random, and only
// its guaranteed minimum (0) is counted.

#include <cuda_runtime.h>
#include <stdint.h>

__global__ void segment_mean_csr(float* out, const int* indptr,
                                 const int* indices, const float* x,
                                 int num_dst, int feat_dim) {
  const int r = blockIdx.x;
  if (r >= num_dst) return;

  const int begin = indptr[r];
  const int end = indptr[r + 1];
  const int deg = end - begin;

  for (int f = threadIdx.x; f < feat_dim; f += blockDim.x) {
    float sum = 0.0f;
    for (int e = begin; e < end; ++e) {
      sum += x[(int64_t)indices[e] * feat_dim + f];
    }
    out[(int64_t)r * feat_dim + f] = deg > 0 ? sum / deg : 0.0f;
  }
}
