// Host driver of vectorize-host-emulation.test: runs the kernels of KERNELS
// (the original file or its rewrite) for many sizes, launch shapes and
// (mis)alignments, one thread after another, and prints a hash of every
// output. The original's and the rewrite's lines must be identical.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define __global__
#define __device__
#define __restrict__ __restrict

struct Dim3 {
  unsigned x = 0, y = 0, z = 0;
};
static Dim3 threadIdx, blockIdx, blockDim, gridDim;
static long VectorMoves = 0; // vector loads and stores done by the rewrite

// Vector types that count how often a whole vector is assigned.
#define ASTRA_VEC(Name, T, N)                                                  \
  struct Name {                                                                \
    T e[N];                                                                    \
    Name &operator=(const Name &O) {                                           \
      ++VectorMoves;                                                           \
      std::memcpy(e, O.e, sizeof(e));                                         \
      return *this;                                                            \
    }                                                                          \
  };
ASTRA_VEC(float4, float, 4)
ASTRA_VEC(float2, float, 2)
ASTRA_VEC(uint4, unsigned, 4)
ASTRA_VEC(uint2, unsigned, 2)
template <class T> T __ldg(const T *P) { return *P; }

#include KERNELS

template <class F> static void launch(unsigned Grid, unsigned Block, F Fn) {
  gridDim.x = Grid;
  blockDim.x = Block;
  for (unsigned B = 0; B < Grid; ++B)
    for (unsigned T = 0; T < Block; ++T) {
      blockIdx.x = B;
      threadIdx.x = T;
      Fn();
    }
}

template <class T> static void hash(const char *What, const T *P, long N) {
  uint64_t H = 1469598103934665603ull;
  for (long I = 0; I < N; ++I) {
    unsigned char Bytes[sizeof(T)];
    std::memcpy(Bytes, &P[I], sizeof(T));
    for (unsigned char C : Bytes)
      H = (H ^ C) * 1099511628211ull;
  }
  std::printf(" %s=%016llx", What, (unsigned long long)H);
}

// A buffer of N elements starting Off elements past a 16-byte boundary,
// filled with small integers (or poisoned).
template <class T> struct Buf {
  std::vector<T> Store;
  T *P;
  Buf(long N, int Off, int Seed, bool Poison) : Store(N + 64) {
    uintptr_t A = reinterpret_cast<uintptr_t>(Store.data());
    long Skip = (16 - A % 16) % 16 / sizeof(T) + Off;
    P = Store.data() + Skip;
    for (long I = 0; I < N; ++I)
      P[I] = Poison ? T(-77) : T((I * 7 + Seed * 13) % 23 - 11);
  }
};

int main() {
  const int Sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100};
  const unsigned Blocks[] = {1, 3, 32};
  const unsigned Grids[] = {1, 2, 3};
  for (int N : Sizes)
    for (unsigned Bl : Blocks)
      for (unsigned G : Grids)
        for (int Off : {0, 1}) {
          std::printf("n=%d grid=%u block=%u off=%d:", N, G, Bl, Off);
          {
            Buf<float> In(2L * N * G, Off, 1, false), Out(1L * N * G, Off, 0, true);
            launch(G, Bl, [&] { rows(Out.P, In.P, N); });
            hash("rows", Out.P, 1L * N * G);
          }
          {
            Buf<float> X(N, Off, 2, false), Y(N, 0, 3, false);
            launch(G, Bl, [&] { axpy(Y.P, X.P, 3.0f, N); });
            hash("axpy", Y.P, N);
          }
          for (long Cs : {1L, 2L}) {
            long Rs = N * Cs + Off;
            Buf<int> In(Rs * G + N * Cs, 0, 4, false), Out(1L * N * G, Off, 0, true);
            launch(G, Bl, [&] { gather(Out.P, In.P, Rs, Cs, N); });
            hash(Cs == 1 ? "gather1" : "gather2", Out.P, 1L * N * G);
          }
          {
            long Rows = 1L * G * Bl;
            Buf<float> In(Rows * N, Off, 5, false), Out(Rows * N, 0, 0, true),
                Part(Rows, 0, 0, true);
            launch(G, Bl, [&] { rowsum(Part.P, Out.P, In.P, N); });
            hash("rowsum", Out.P, Rows * N);
            hash("rowsum.partial", Part.P, Rows);
          }
          {
            Buf<float> In(1L * N * G, Off, 6, false), Sum(1L * G * Bl, 0, 0, true),
                Max(1L * G * Bl, 0, 0, true);
            launch(G, Bl, [&] { blocksum(Sum.P, Max.P, In.P, N); });
            std::vector<float> Totals(G, 0.0f), Maxima(G, -1000.0f);
            for (unsigned B = 0; B < G; ++B)
              for (unsigned T = 0; T < Bl; ++T) {
                Totals[B] += Sum.P[B * Bl + T];
                Maxima[B] = std::fmax(Maxima[B], Max.P[B * Bl + T]);
              }
            hash("blocksum.max", Maxima.data(), G);
            hash("blocksum.total", Totals.data(), G);
          }
          {
            Buf<float> X(N, Off, 7, false);
            launch(G, Bl, [&] { relu(X.P, N); });
            hash("relu", X.P, N);
          }
          {
            Buf<float> In(N, Off, 8, false), Out(N, Off, 0, true);
            launch(G, Bl, [&] { scale<float>(Out.P, In.P, 2.0f, N); });
            hash("scale.f32", Out.P, N);
          }
          {
            Buf<double> In(N, Off, 9, false), Out(N, 0, 0, true);
            launch(G, Bl, [&] { scale<double>(Out.P, In.P, 2.0, N); });
            hash("scale.f64", Out.P, N);
          }
          {
            Buf<short> In(N, Off, 10, false), Out(N, Off, 0, true);
            launch(G, Bl, [&] { scale<short>(Out.P, In.P, short(3), N); });
            hash("scale.i16", Out.P, N);
          }
          std::printf("\n");
        }
  std::fprintf(stderr, "vector moves: %ld\n", VectorMoves);
  return 0;
}
