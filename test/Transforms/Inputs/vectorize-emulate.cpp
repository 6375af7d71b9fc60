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
// Threads run one after another: a plain add is atomic.
template <class T> T atomicAdd(T *P, T V) {
  T Old = *P;
  *P += V;
  return Old;
}

#include KERNELS

template <class F>
static void launch2(unsigned GX, unsigned GY, unsigned BX, unsigned BY, F Fn) {
  gridDim = {GX, GY, 1};
  blockDim = {BX, BY, 1};
  for (unsigned Y = 0; Y < GY; ++Y)
    for (unsigned X = 0; X < GX; ++X)
      for (unsigned TY = 0; TY < BY; ++TY)
        for (unsigned TX = 0; TX < BX; ++TX) {
          blockIdx = {X, Y, 0};
          threadIdx = {TX, TY, 0};
          Fn();
        }
}
template <class F> static void launch(unsigned Grid, unsigned Block, F Fn) {
  launch2(Grid, 1, Block, 1, Fn);
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
    size_t A = reinterpret_cast<size_t>(Store.data());
    long Skip = (16 - A % 16) % 16 / sizeof(T) + Off;
    P = Store.data() + Skip;
    for (long I = 0; I < N; ++I)
      P[I] = Poison ? T(-77) : T((I * 7 + Seed * 13) % 23 - 11);
  }
};

// The widened forms: sizes around the widths, grids too small, exact and
// too large, misaligned data.
static void runWidened() {
  const int Widths[] = {1, 2, 3, 4, 5, 7, 8, 12, 16};
  const unsigned Blocks[] = {1, 3, 32};
  for (int F : Widths)
    for (int R : {1, 3, 5})
      for (unsigned Bl : Blocks)
        for (int Off : {0, 1})
          for (int Part : {1, 2, 3}) { // grid: half, exact, one more
            auto Grid = [&](long N, unsigned B) {
              long G = (N + B - 1) / B;
              G = Part == 1 ? (G + 1) / 2 : Part == 2 ? G : G + 1;
              return unsigned(G < 1 ? 1 : G);
            };
            std::printf("f=%d r=%d block=%u off=%d grid=%d:", F, R, Bl, Off,
                        Part);
            {
              Buf<float> In(2L * R * F, Off, 11, false), Out(1L * R * F, Off, 0, true);
              launch2(Grid(F, Bl), R, Bl, 1, [&] { act(Out.P, In.P, F); });
              hash("act", Out.P, 1L * R * F);
            }
            {
              Buf<float> X(7L * F, Off, 12, false), Out(1L * R * F, 0, 0, true);
              Buf<long> Index(R, 0, 0, false);
              for (int I = 0; I < R; ++I)
                Index.P[I] = (I * 3 + 1) % 7;
              launch(Grid(1L * R * F, Bl), Bl,
                     [&] { gatherRows(Out.P, Index.P, X.P, R, F); });
              hash("gatherRows", Out.P, 1L * R * F);
            }
            // CSR rows with 0, 1 and 2 edges.
            std::vector<long> Ptr(R + 1, 0);
            for (int I = 0; I < R; ++I)
              Ptr[I + 1] = Ptr[I] + I % 3;
            long Nnz = Ptr[R];
            {
              Buf<long> Indptr(R + 1, 0, 0, false), Indices(Nnz + 1, 0, 0, false);
              Buf<float> Values(Nnz + 1, 0, 13, false), Dense(7L * F, Off, 14, false),
                  Out(1L * R * F, Off, 0, true);
              for (int I = 0; I <= R; ++I)
                Indptr.P[I] = Ptr[I];
              for (long E = 0; E < Nnz; ++E)
                Indices.P[E] = (E * 5 + 2) % 7;
              launch2((R + 1) / 2, Grid(F, Bl), Bl, 2, [&] {
                spmm(Out.P, Indptr.P, Indices.P, Values.P, Dense.P, R, F);
              });
              hash("spmm", Out.P, 1L * R * F);
            }
            {
              Buf<int> Indptr(R + 1, 0, 0, false), Indices(Nnz + 1, 0, 0, false);
              Buf<float> X(7L * F, Off, 15, false), Out(1L * R * F, Off, 0, true);
              for (int I = 0; I <= R; ++I)
                Indptr.P[I] = int(Ptr[I]);
              for (long E = 0; E < Nnz; ++E)
                Indices.P[E] = int((E * 4 + 3) % 7);
              launch(R, Bl, [&] { segmean(Out.P, Indptr.P, Indices.P, X.P, F); });
              hash("segmean", Out.P, 1L * R * F);
              Buf<float> Concat(2L * R * F, Off, 0, true);
              launch(R, Bl, [&] { sageConcat(Concat.P, Indptr.P, Indices.P, X.P, F); });
              hash("sageConcat", Concat.P, 2L * R * F);
            }
            {
              int E = 2 * R;
              Buf<float> Src(1L * E * F, Off, 16, false), Out(3L * F, Off, 17, false);
              Buf<long> Index(E, 0, 0, false);
              for (int I = 0; I < E; ++I)
                Index.P[I] = I % 3;
              launch(Grid(1L * E * F, Bl), Bl,
                     [&] { scatter(Out.P, Index.P, Src.P, E, F); });
              hash("scatter", Out.P, 3L * F);
            }
            for (int Stride : {F, 16, 0}) { // apart, apart, the same range
              Buf<float> X(F, Off, 19, false), Out(2L * F + 20, Off, 23, false);
              launch(1, Bl, [&] { twoAt(Out.P, X.P, F, Stride); });
              hash("twoAt", Out.P, 2L * F + 20);
            }
            {
              Buf<float> A(1L * R * F, Off, 20, false), B(1L * R * F, Off, 21, false),
                  Out(1L * R * F, Off, 0, true), W(R, 0, 22, false), Tag(R, 0, 0, true);
              launch(R, Bl, [&] { blockElem(Out.P, Tag.P, A.P, B.P, W.P, F, 1); });
              hash("blockElem", Out.P, 1L * R * F);
              hash("blockElem.tag", Tag.P, R);
            }
            std::printf("\n");
          }
}
#ifdef ANY_BLOCK
// The any-block form (vectorize-host-emulation-any-block.test): blockElem
// and blockRow, one element per thread of a block, launched with d threads in the
// original (ANY_BLOCK=0) and with d / Div threads (rounded up) in the
// rewrite (ANY_BLOCK=1), for several divisors, sizes and alignments.
static void runAnyBlock() {
  const int R = 3;
  for (int Div : {1, 2, 3, 4, 8, 16, 64})
    for (int F : {1, 3, 4, 5, 8, 9, 12, 16, 31, 33, 64})
      for (int Off : {0, 1}) {
        unsigned Block = ANY_BLOCK ? unsigned((F + Div - 1) / Div) : F;
        std::printf("div=%d f=%d off=%d:", Div, F, Off);
        Buf<float> A(1L * R * F, Off, 20, false), B(1L * R * F, Off, 21, false),
            Out(1L * R * F, Off, 0, true), W(R, 0, 22, false), Tag(R, 0, 0, true);
        launch(R, Block, [&] { blockElem(Out.P, Tag.P, A.P, B.P, W.P, F, 1); });
        hash("blockElem", Out.P, 1L * R * F);
        hash("blockElem.tag", Tag.P, R);
        const int Ld = (F + 3) / 4 * 4; // rows aligned when Off is 0
        Buf<float> RowA(1L * R * Ld, Off, 23, false),
            RowOut(1L * R * Ld, Off, 0, true), RowTag(R, 0, 0, true);
        launch(R, Block, [&] { blockRow(RowOut.P, RowTag.P, RowA.P, W.P, F, Ld); });
        hash("blockRow", RowOut.P, 1L * R * Ld);
        hash("blockRow.tag", RowTag.P, R);
        const int Deg = 3, Src = 5;
        Buf<int> Idx(1L * R * Deg, 0, 0, true);
        for (long K = 0; K < 1L * R * Deg; ++K)
          Idx.P[K] = int((K * 7 + 2) % Src);
        Buf<float> X(1L * Src * F, Off, 24, false),
            LoopOut(1L * R * F, Off, 0, true), LoopTag(R, 0, 0, true);
        launch(R, Block,
               [&] { blockLoop(LoopOut.P, LoopTag.P, Idx.P, X.P, Deg, F); });
        hash("blockLoop", LoopOut.P, 1L * R * F);
        hash("blockLoop.tag", LoopTag.P, R);
        std::printf("\n");
      }
  std::fprintf(stderr, "any-block vector moves: %ld\n", VectorMoves);
}
#endif

int main() {
#ifdef ANY_BLOCK
  runAnyBlock();
  return 0;
#endif
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
  VectorMoves = 0;
  runWidened();
  std::fprintf(stderr, "widened vector moves: %ld\n", VectorMoves);
  return 0;
}
