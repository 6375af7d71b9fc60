// Host driver of warp-reduce-tuple-emulation.test: runs moe_topk_softmax of
// KERNELS (the suite's kernel or a rewrite of it) under the CUDA emulation
// of kernels/emu/shim.h (one std::thread per CUDA thread, real barriers,
// warp shuffles between the threads of a warp), with blocks of E threads:
// whole warps (32 to 512, the rewritten tree), 8 and 96 (the fallback),
// logits with ties, infinities and NaNs (the arg-max step keeps or drops a
// NaN by where it stands in the tree, so only the original's pairs in the
// original's order give the original's ids), and prints a hash of the ids
// and of the weights' bits per case (every NaN weight as one NaN).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>
#include KERNELS

int main() {
  uint32_t Seed = 2024;
  auto Next = [&] {
    Seed = Seed * 1664525u + 1013904223u;
    return Seed >> 8;
  };
  for (int E : {32, 64, 128, 512, 8, 96})
    for (int Kind = 0; Kind < 4; ++Kind) {
      const int T = 4, K = E < 10 ? 2 : 10;
      std::vector<float> G(T * E);
      for (float &X : G) {
        unsigned R = Next();
        // Kind 0: distinct values; 1: few distinct values (ties); 2: NaNs;
        // 3: NaNs, infinities and ties.
        X = Kind == 0 ? (R % 100003) / 1000.0f - 50.0f
                      : static_cast<float>(R % 7) - 3.0f;
        if (Kind >= 2 && R % 9 == 0)
          X = NAN;
        if (Kind == 3 && R % 13 == 1)
          X = R % 2 ? INFINITY : -INFINITY;
      }
      std::vector<float> W(T * K, -7.0f);
      std::vector<int> Ids(T * K, -7);
      emu_launch(&moe_topk_softmax, dim3(T), dim3(E), W.data(), Ids.data(),
                 static_cast<const float *>(G.data()), E, K, 1);
      for (float &X : W) // NaN payloads depend on the host compiler's
        if (std::isnan(X)) // operand order; the GPU has one NaN
          X = NAN;
      printf("E=%d kind=%d ids=%016llx weights=%016llx\n", E, Kind,
             (unsigned long long)emu_hash(Ids.data(), Ids.size() * sizeof(int)),
             (unsigned long long)emu_hash(W.data(), W.size() * sizeof(float)));
    }
  return 0;
}
