//===- UnifiedDiff.cpp - Line diffs in unified format ---------------------===//
//
// Common leading and trailing lines are set aside first; the rest is aligned
// with a longest-common-subsequence table. Rewrites change a few regions of a
// file, so the table stays small; past a size limit the middle is shown as
// one replaced block rather than spending quadratic memory.
//
//===----------------------------------------------------------------------===//
#include "astra/Support/UnifiedDiff.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include <vector>

using namespace llvm;

namespace astra {

namespace {
enum class Op { Keep, Del, Add };
struct Line {
  Op Kind;
  StringRef Text;
};

std::vector<StringRef> splitLines(StringRef S) {
  std::vector<StringRef> L;
  while (!S.empty()) {
    size_t N = S.find('\n');
    if (N == StringRef::npos) {
      L.push_back(S);
      break;
    }
    L.push_back(S.take_front(N + 1));
    S = S.drop_front(N + 1);
  }
  return L;
}

std::vector<Line> align(ArrayRef<StringRef> A, ArrayRef<StringRef> B) {
  size_t Pre = 0;
  while (Pre < A.size() && Pre < B.size() && A[Pre] == B[Pre])
    ++Pre;
  size_t Suf = 0;
  while (Suf < A.size() - Pre && Suf < B.size() - Pre &&
         A[A.size() - 1 - Suf] == B[B.size() - 1 - Suf])
    ++Suf;
  ArrayRef<StringRef> MA = A.slice(Pre, A.size() - Pre - Suf);
  ArrayRef<StringRef> MB = B.slice(Pre, B.size() - Pre - Suf);
  std::vector<Line> Out;
  for (size_t I = 0; I < Pre; ++I)
    Out.push_back({Op::Keep, A[I]});
  size_t N = MA.size(), M = MB.size();
  if (N * M > 25'000'000) {
    for (StringRef L : MA)
      Out.push_back({Op::Del, L});
    for (StringRef L : MB)
      Out.push_back({Op::Add, L});
  } else {
    // T[i][j]: LCS length of MA[i..] and MB[j..].
    std::vector<uint32_t> T((N + 1) * (M + 1), 0);
    auto At = [&](size_t I, size_t J) -> uint32_t & {
      return T[I * (M + 1) + J];
    };
    for (size_t I = N; I-- > 0;)
      for (size_t J = M; J-- > 0;)
        At(I, J) = MA[I] == MB[J] ? At(I + 1, J + 1) + 1
                                  : std::max(At(I + 1, J), At(I, J + 1));
    size_t I = 0, J = 0;
    while (I < N || J < M) {
      if (I < N && J < M && MA[I] == MB[J]) {
        Out.push_back({Op::Keep, MA[I++]});
        ++J;
      } else if (J < M && (I == N || At(I, J + 1) >= At(I + 1, J))) {
        Out.push_back({Op::Add, MB[J++]});
      } else {
        Out.push_back({Op::Del, MA[I++]});
      }
    }
  }
  for (size_t I = A.size() - Suf; I < A.size(); ++I)
    Out.push_back({Op::Keep, A[I]});
  return Out;
}
} // namespace

std::string unifiedDiff(StringRef Old, StringRef New, StringRef OldName,
                        StringRef NewName, unsigned Context) {
  if (Old == New)
    return "";
  std::vector<StringRef> A = splitLines(Old), B = splitLines(New);
  std::vector<Line> L = align(A, B);
  std::string Out;
  raw_string_ostream OS(Out);
  OS << "--- " << OldName << "\n+++ " << NewName << "\n";
  size_t I = 0;
  while (I < L.size()) {
    if (L[I].Kind == Op::Keep) {
      ++I;
      continue;
    }
    // A hunk: from Context lines before this change to Context lines after
    // the last change that is within 2*Context lines of the previous one.
    size_t Begin = I >= Context ? I - Context : 0;
    size_t End = I;
    while (End < L.size()) {
      size_t K = End;
      while (K < L.size() && L[K].Kind != Op::Keep)
        ++K;
      size_t Next = K;
      while (Next < L.size() && L[Next].Kind == Op::Keep &&
             Next - K < 2 * Context)
        ++Next;
      if (Next < L.size() && L[Next].Kind != Op::Keep) {
        End = Next;
        continue;
      }
      End = std::min(L.size(), K + Context);
      break;
    }
    // Line numbers at Begin.
    size_t OldLine = 1, NewLine = 1;
    for (size_t K = 0; K < Begin; ++K) {
      OldLine += L[K].Kind != Op::Add;
      NewLine += L[K].Kind != Op::Del;
    }
    size_t OldCount = 0, NewCount = 0;
    for (size_t K = Begin; K < End; ++K) {
      OldCount += L[K].Kind != Op::Add;
      NewCount += L[K].Kind != Op::Del;
    }
    OS << formatv("@@ -{0},{1} +{2},{3} @@\n", OldCount ? OldLine : OldLine - 1,
                  OldCount, NewCount ? NewLine : NewLine - 1, NewCount);
    for (size_t K = Begin; K < End; ++K) {
      OS << (L[K].Kind == Op::Keep ? ' ' : L[K].Kind == Op::Del ? '-' : '+')
         << L[K].Text;
      if (!L[K].Text.ends_with("\n"))
        OS << "\n\\ No newline at end of file\n";
    }
    I = End;
  }
  return Out;
}

} // namespace astra
