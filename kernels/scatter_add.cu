// scatter_add: sum aggregation of edge messages into their destination
// nodes, from an unsorted COO edge list (PyG's scatter(src, index, dim=0,
// reduce="sum") into an existing tensor, i.e. out.index_add_(0, index, src)).
//
//     out[index[e], f] += src[e, f]        for e < num_edges, f < feat_dim
//
// accumulated into the existing contents of out with float atomicAdd.  The
// order of the additions into one element is not fixed, so the result can
// differ between runs in the last bits: this kernel is not deterministic.
//
// Layout:
//     src    [num_edges, feat_dim]   f32, row-major: one message per edge
//     index  [num_edges]             int64, destination node of each edge,
//                                    in [0, num_nodes)
//     out    [num_nodes, feat_dim]   f32, row-major, read and written
//
// Launch: a grid-stride loop over the num_edges * feat_dim elements of src
// (64-bit flattened index); the spec uses min(ceil_div(E*F, 256), 8192)
// blocks of 256 threads.
//
// Shapes in scatter_add.astra.json: the message passing of a GraphSAGE-style
// mini-batch with 1024 seeds and fanouts (15, 10, 5), feature dim 128 and
// hidden 256, with no deduplication, every destination node of a layer also
// being one of its sources and sampling its own neighbours:
//     E = 15,      n = 1,       F = 256   one seed's 15 messages (online
//                                         inference)
//     E = 15,360,  n = 1,024,   F = 256   layer 3: 1024 seeds * 15
//     E = 163,840, n = 16,384,  F = 256   layer 2: 16,384 nodes * 10
//     E = 901,120, n = 180,224, F = 128   layer 1: 180,224 nodes * 5, input
//                                         features (src 461 MB, out 92 MB)
// Destination ids are uniform in [0, n) (an unsorted edge list; about 5 to 15
// messages per node on average).
// Tolerance: rtol 1e-5, atol 1e-4.  Reordered f32 additions of about 5 to 15
// unit-scale values plus the initial value differ by up to ~1e-5 absolute,
// more than rtol * |out| when the sum cancels.  Because of the atomics, a
// rerun of this same kernel is not bit-identical.
// Bytes (the spec's "bytes": the fewest bytes the kernel must move, from
// which the harness computes its physical floor and achieved GB/s): src
// E*F*4 + index E*8 + the rows of out that receive a message, F*4 bytes
// each, read and written once.  With E ids uniform in [0, n) the expected
// number of distinct rows is n*(1 - (1 - 1/n)^E) (179,010 at the largest
// shape); the spec counts E*n/(n+E) (150,186), a lower bound on that
// expectation (1 - (1-1/n)^E >= 1 - e^(-E/n) >= (E/n) / (1 + E/n)), far
// below it compared with how much one draw varies (sd below 425).  At the
// largest shape: 622.4 MB counted, about 651.9 MB really moved, 653.1 MB
// for every buffer whole (out counted twice).

#include <cuda_runtime.h>
#include <stdint.h>

__global__ void scatter_add(float* out, const int64_t* index, const float* src,
                            int num_edges, int feat_dim) {
  const int64_t n = (int64_t)num_edges * feat_dim;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;

  for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n;
       idx += stride) {
    int64_t e = idx / feat_dim;
    int64_t f = idx % feat_dim;
    atomicAdd(&out[index[e] * feat_dim + f], src[idx]);
  }
}

// Host launcher.
void launch_scatter_add(float* out, const int64_t* index, const float* src,
                        int num_edges, int feat_dim, cudaStream_t stream) {
  const int64_t n = (int64_t)num_edges * feat_dim;
  if (n == 0) return;
  const int threads = 256;
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks > 8192) blocks = 8192;
  scatter_add<<<(unsigned)blocks, threads, 0, stream>>>(out, index, src,
                                                        num_edges, feat_dim);
}
