// sage_mean_concat: the aggregation step of a GraphSAGE layer with the mean
// aggregator on one sampled block: the neighbour mean and the node's own
// (root) features, side by side, the input of the layer's two GEMMs
// (out = mean_j x_j W_l + x_i W_r = [mean_j x_j, x_i] [W_l; W_r]).
//
// In the message flow graph of a sampled mini-batch the destination nodes
// of a block are the first num_dst of its source nodes (DGL's blocks, PyG's
// x[:size[1]]), so node i's own features are row i of x. For every
// destination node i < num_dst, with its neighbours
// indices[indptr[i] .. indptr[i+1]) and degree deg = indptr[i+1] - indptr[i]:
//
//     out[i, f]            = (1/deg) * sum_{e in row i} x[indices[e], f]
//                                        (deg > 0; 0 when deg = 0)
//     out[i, feat_dim + f] = x[i, f]
//
// for f < feat_dim, summed in f32 in edge order and rounded once to T.
//
// Layout:
//     indptr   [num_dst + 1]           int64, non-decreasing, indptr[0] = 0
//     indices  [nnz]                   int64, source node ids in [0, num_src)
//     x        [num_src, feat_dim]     T (float or __nv_bfloat16), row-major;
//                                      num_src >= num_dst
//     out      [num_dst, 2 * feat_dim] T, row-major: the mean, then the root
//
// Launch: grid = num_dst (one block per destination node), block = 128
// threads striding over the features: for (f = threadIdx.x; f < feat_dim;
// f += blockDim.x); each thread walks the node's edge list for its feature,
// then copies the root feature.
//
// Instantiations: float (the spec runs this one) and __nv_bfloat16 (mixed
// precision training; accumulation stays f32).
//
// Shapes in sage_mean_concat.astra.json: the blocks of a GraphSAGE
// mini-batch with 1024 seeds and fanouts (15, 10, 5), counted with no
// deduplication (kernels/README.md), feature widths 128 to 602:
//     R = 1,       S = 16,        deg 15     one seed (online inference), 128
//     R = 1,024,   S = 16,384,    deg 15     layer 3 (output), hidden 256
//     R = 16,384,  S = 180,224,   deg 0..10  layer 2, hidden 256; nodes with
//                                            fewer neighbours than the fanout,
//                                            some with none
//     R = 16,384,  S = 180,224,   deg 10     the input layer of a two-layer
//                                            model (fanouts 15, 10) on 602-wide
//                                            features (Reddit's, as in the
//                                            GraphSAGE paper): x 434 MB; 602
//                                            is not a multiple of 4
//     R = 180,224, S = 1,081,344, deg 5      layer 1 (input), 128-wide features
//                                            (ogbn-papers100M's width): x 553 MB,
//                                            out 185 MB
// The indices buffer is sized R * max_degree (the most edges the indptr
// generator can produce); ids are uniform in [0, S).
// Tolerance: rtol 1e-5, atol 1e-5 (f32; the sum order is fixed, atol covers
// means that cancel to near zero; the root half is an exact copy).
// Bytes (the spec's "bytes": the fewest bytes the kernel must move): out
// R*2F*4 + indptr (R+1)*8 + the ids of the edges, at least e = R*dmin of
// them, 8 bytes each, + the rows of x really read, F*4 bytes each, once per
// distinct row: the R root rows (ids 0..R-1, all read) and the rows among the
// neighbour ids, counted as at least e*S/(S+e) distinct (the lower bound of
// kernels/README.md), so max(R, e*S/(S+e)) rows in all. At the largest
// shape: 444.9 MB counted (491,520 rows), about 546.3 MB really moved (the
// expected 611,394 distinct neighbour rows and the 78,325 root rows not
// among them), 746.8 MB for every buffer whole.

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T>
__global__ void sage_mean_concat(T* out, const int64_t* indptr,
                                 const int64_t* indices, const T* x,
                                 int num_dst, int feat_dim) {
  const int i = blockIdx.x;
  if (i >= num_dst) return;

  const int64_t begin = indptr[i];
  const int64_t end = indptr[i + 1];
  const int64_t deg = end - begin;

  for (int f = threadIdx.x; f < feat_dim; f += blockDim.x) {
    float sum = 0.0f;
    for (int64_t e = begin; e < end; ++e) {
      sum += static_cast<float>(x[indices[e] * feat_dim + f]);
    }
    const float mean = deg > 0 ? sum / (float)deg : 0.0f;
    out[(int64_t)i * 2 * feat_dim + f] = static_cast<T>(mean);
    out[(int64_t)i * 2 * feat_dim + feat_dim + f] = x[(int64_t)i * feat_dim + f];
  }
}

template __global__ void sage_mean_concat<float>(float*, const int64_t*,
                                                 const int64_t*, const float*,
                                                 int, int);
template __global__ void sage_mean_concat<__nv_bfloat16>(
    __nv_bfloat16*, const int64_t*, const int64_t*, const __nv_bfloat16*, int,
    int);
