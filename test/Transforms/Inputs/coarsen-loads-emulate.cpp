// Host driver of coarsen-loads-emulation.test: runs per_token_group_int8_quant
// of KERNELS (the suite's kernel or its rewrite by coarsen) under the CUDA
// emulation of kernels/emu/shim.h (one std::thread per CUDA thread, a real
// barrier), with blocks of group_size / DIV threads, for group sizes 64 and
// 128, rows whose groups are whole, partial or shorter than a pack, rows
// that start misaligned (d odd) and an input misaligned by one element, and
// prints a hash of every output per case. The original (DIV=1) and the
// rewrite (DIV=C, its coarsened path) must print the same lines.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include KERNELS

#ifndef DIV
#define DIV 1
#endif

int main() {
  uint32_t Seed = 12345;
  auto Next = [&] {
    Seed = Seed * 1664525u + 1013904223u;
    return static_cast<int>(Seed >> 8 & 0xffff) - 32768;
  };
  for (int Gs : {128, 64})
    for (int D : {512, 300, 301, 136, 7})
      for (int Off : {0, 1}) {
        const int T = 3, G = (D + Gs - 1) / Gs;
        // Padded past the rows: a rewrite that loads past d reads values.
        std::vector<__nv_bfloat16> X(T * D + 64);
        for (size_t I = 0; I < X.size(); ++I)
          X[I] = __float2bfloat16(I % 17 == 3 ? 0.0f : Next() / 1024.0f);
        for (int I = 0; I < Gs && I < D; ++I) // an all-zero group
          X[Off + I] = __float2bfloat16(0.0f);
        std::vector<int8_t> Q(T * D, 99);
        std::vector<float> S(T * G, -1.0f);
        emu_launch(&per_token_group_int8_quant, dim3(G, T), dim3(Gs / DIV),
                   Q.data(), S.data(),
                   static_cast<const __nv_bfloat16 *>(X.data() + Off), D, Gs);
        printf("gs=%d d=%d off=%d q=%016llx scales=%016llx\n", Gs, D, Off,
               (unsigned long long)emu_hash(Q.data(), Q.size()),
               (unsigned long long)emu_hash(S.data(), S.size() * sizeof(float)));
      }
  return 0;
}
