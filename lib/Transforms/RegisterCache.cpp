//===- RegisterCache.cpp - Rows kept in registers between passes ----------===//
//
// register-cache[:packs=1|2|4|8]
//   A two-pass row kernel (RegisterCachePlan.h: a chain of block-strided loops
//   over the same row length n, a later one re-reading a row an earlier one
//   read or wrote) keeps those rows in registers:
//
//     constexpr int RcW = 16 / sizeof(T);          // elements per 16-byte pack
//     struct alignas(sizeof(T) * RcW) RcPackT { T v[RcW]; };
//     RcPackT xCache[PACKS];                       // the thread's packs
//     const bool rcFits = n % RcW == 0 && n / RcW <= PACKS * blockDim.x &&
//                         <every row aligned to its pack> &&
//                         <stored rows overlap no other row or single store>;
//     if (rcFits) {
//       for (int k = 0; k < PACKS; ++k) {          // unrolled: registers
//         const int pack = threadIdx.x + k * blockDim.x;
//         if (pack < n / RcW) {
//           xCache[k] = *reinterpret_cast<const RcPackT *>(x + pack * RcW);
//           for (lane) { const int i = pack * RcW + lane; body(x[i] ->
//                        xCache[k].v[lane]) }
//         }
//       }
//     } else { <loop 1> }
//     ...                                          // e.g. the reduction
//     if (rcFits) { same, xCache[k] not loaded again } else { <loop 2> }
//
//   Every row access of every loop of the chain goes through a 16-byte (or
//   narrower, for smaller elements) pack; the cached rows are loaded once.
//   The guard is uniform over the block. Rows longer than PACKS * 16 bytes
//   per thread, unaligned rows, n not a multiple of RcW and overlapping rows
//   take the original loops. A float reduction is regrouped (each thread
//   sums other elements), so the rounding may change.
//
//   Composition: it reads the loops as written. After vectorize-loads the
//   loops are guarded vector loops and register-cache no longer applies
//   (listed with the reason); applied first, it leaves the original loops as
//   its fallback, which vectorize-loads can then vectorize.
//
//===----------------------------------------------------------------------===//
#include "EditBatch.h"
#include "FreshName.h"
#include "RegisterCachePlan.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace llvm;
using namespace clang;

namespace astra {
namespace {

class RegisterCache : public Rewrite {
public:
  StringRef getName() const override { return "register-cache"; }
  StringRef getDescription() const override {
    return "a row read again by a later loop (two-pass norms, per-token "
           "quantization) stays in registers, up to `packs` 16-byte packs "
           "per thread; longer rows take the original loops";
  }
  std::vector<ParamDesc> getParams() const override {
    ParamDesc Packs{"packs",
                    RewriteParamKind::Int,
                    "4",
                    {"1", "2", "4", "8"},
                    "16-byte packs of each cached row a thread holds: rows "
                    "up to packs * 16 bytes * blockDim.x take the cached path"};
    Packs.Choices = {"1", "2", "4", "8"};
    return {Packs};
  }
  Scope getScope() const override { return Scope::Loop; }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

struct RcNames {
  std::string W, Fits, K, Pack, Lane;
  std::vector<std::string> PackType; ///< per group
};

/// Whether \p Text mentions the identifier \p Name.
bool mentionsName(StringRef Text, StringRef Name) {
  auto IsId = [](char C) { return isAlnum(C) || C == '_'; };
  for (size_t Pos = Text.find(Name); Pos != StringRef::npos;
       Pos = Text.find(Name, Pos + 1)) {
    size_t End = Pos + Name.size();
    if ((Pos == 0 || !IsId(Text[Pos - 1])) &&
        (End == Text.size() || !IsId(Text[End])))
      return true;
  }
  return false;
}

std::string addressInt(StringRef E) {
  return ("reinterpret_cast<size_t>(" + E + ")").str();
}

/// Declarations and the guard, inserted before the first loop.
std::string generatePrologue(const RcChain &C, const RcNames &N, int Packs) {
  std::string Out;
  raw_string_ostream OS(Out);
  std::vector<std::string> Types;
  for (const RcGroup &G : C.Groups)
    if (!is_contained(Types, G.ElemType))
      Types.push_back(G.ElemType);
  std::vector<std::string> Cached;
  for (const RcGroup &G : C.Groups)
    if (G.Cached)
      Cached.push_back(G.Addr);
  OS << "// astra-opt register-cache: rows " << join(Cached, ", ")
     << " stay in registers (up to " << Packs
     << " 16-byte packs per thread) between the loops below; longer rows "
        "take the original loops.\n";
  std::string Size = "sizeof(" + Types[0] + ")";
  for (size_t I = 1; I < Types.size(); ++I)
    Size = "(sizeof(" + Types[I] + ") > " + Size + " ? sizeof(" + Types[I] +
           ") : " + Size + ")";
  for (const std::string &T : Types)
    OS << "static_assert(16 % sizeof(" << T
       << ") == 0, \"register-cache: the element size must divide 16 "
          "bytes\");\n";
  OS << "constexpr int " << N.W << " = 16 / " << Size << ";\n";
  for (size_t I = 0; I < Types.size(); ++I) {
    std::string Name;
    for (size_t G = 0; G < C.Groups.size(); ++G)
      if (C.Groups[G].ElemType == Types[I])
        Name = N.PackType[G];
    OS << "struct alignas(sizeof(" << Types[I] << ") * " << N.W << ") " << Name
       << " {\n  " << Types[I] << " v[" << N.W << "];\n};\n";
  }
  for (size_t G = 0; G < C.Groups.size(); ++G)
    if (C.Groups[G].Cached)
      OS << N.PackType[G] << " " << C.Groups[G].Var << "[" << Packs << "];\n";

  std::string Bound = "(" + C.Bound + ")";
  std::vector<std::string> Conds = {
      Bound + " % " + N.W + " == 0",
      Bound + " / " + N.W + " <= " + std::to_string(Packs) + " * " + C.Step};
  Conds.insert(Conds.end(), C.BlockConds.begin(), C.BlockConds.end());
  for (size_t G = 0; G < C.Groups.size(); ++G)
    Conds.push_back(addressInt(C.Groups[G].Addr) + " % sizeof(" +
                    N.PackType[G] + ") == 0");
  // A stored row overlaps no other row, nor a single store between loops.
  auto Disjoint = [&](StringRef A, StringRef AEnd, StringRef B,
                      StringRef BEnd) {
    return "(" + addressInt(AEnd) + " <= " + addressInt(B) + " || " +
           addressInt(BEnd) + " <= " + addressInt(A) + ")";
  };
  for (size_t A = 0; A < C.Groups.size(); ++A) {
    const RcGroup &GA = C.Groups[A];
    std::string AEnd = GA.Addr + " + " + Bound;
    for (size_t B = A + 1; B < C.Groups.size(); ++B)
      if (GA.Stored || C.Groups[B].Stored)
        Conds.push_back(Disjoint(GA.Addr, AEnd, C.Groups[B].Addr,
                                 C.Groups[B].Addr + " + " + Bound));
    if (GA.Cached)
      for (const std::string &S : C.BetweenStores)
        Conds.push_back(Disjoint(GA.Addr, AEnd, S, S + " + 1"));
  }
  OS << "const bool " << N.Fits << " = " << join(Conds, " &&\n") << ";";
  return Out;
}

std::string packRef(const RcChain &C, const RcNames &N, unsigned G) {
  return C.Groups[G].Cached ? C.Groups[G].Var + "[" + N.K + "]"
                            : C.Groups[G].Var;
}

std::string generateLoop(const RcChain &C, const RcLoop &L, const RcNames &N,
                         int Packs) {
  std::string Out;
  raw_string_ostream OS(Out);
  auto Addr = [&](unsigned G) {
    return C.Groups[G].Addr + " + " + N.Pack + " * " + N.W;
  };
  OS << "if (" << N.Fits << ") {\n#pragma unroll\n"
     << "for (int " << N.K << " = 0; " << N.K << " < " << Packs << "; ++" << N.K
     << ") {\n"
     << "const " << L.IVType << " " << N.Pack << " = " << C.Start << " + "
     << N.K << " * " << C.Step << ";\n"
     << "if (" << N.Pack << " < (" << C.Bound << ") / " << N.W << ") {\n";
  for (unsigned G : L.Used)
    if (!C.Groups[G].Cached)
      OS << N.PackType[G] << " " << C.Groups[G].Var << ";\n";
  for (unsigned G : L.Loads)
    OS << packRef(C, N, G) << " = *reinterpret_cast<const " << N.PackType[G]
       << " *>(" << Addr(G) << ");\n";
  // The body, each row access replaced by its lane.
  std::vector<RcEdit> Edits = L.Edits;
  llvm::sort(Edits, [](const RcEdit &A, const RcEdit &B) {
    return A.Offset < B.Offset;
  });
  std::string Body;
  unsigned Pos = 0;
  for (const RcEdit &E : Edits) {
    Body += L.BodyText.substr(Pos, E.Offset - Pos);
    Body += packRef(C, N, E.Group) + ".v[" + N.Lane + "]";
    Pos = E.Offset + E.Length;
  }
  Body += L.BodyText.substr(Pos);
  Body = StringRef(Body).ltrim("\n").rtrim().str();
  OS << "#pragma unroll\n"
     << "for (int " << N.Lane << " = 0; " << N.Lane << " < " << N.W << "; ++"
     << N.Lane << ") {\n";
  if (mentionsName(Body, L.IVName))
    OS << "const " << L.IVType << " " << L.IVName << " = " << N.Pack << " * "
       << N.W << " + " << N.Lane << ";\n";
  OS << Body << "\n}\n";
  for (unsigned G : L.Stores)
    OS << "*reinterpret_cast<" << N.PackType[G] << " *>(" << Addr(G)
       << ") = " << packRef(C, N, G) << ";\n";
  OS << "}\n}\n} else {\n" << L.LoopText << "\n}";
  return Out;
}

} // namespace

Expected<std::vector<Rewrite::PlannedSite>>
RegisterCache::plan(RewriteContext &RC, const RewriteParams &P) const {
  Expected<int64_t> Packs = P.getInt("packs", 4);
  if (!Packs)
    return Packs.takeError();
  ASTContext &Ctx = RC.getASTContext();
  std::vector<PlannedSite> Sites;
  StringSet<> Taken;
  for (const FunctionDecl *K : findKernels(Ctx)) {
    std::string Kernel = K->getNameAsString();
    DenseMap<const Stmt *, std::string> LoopIds = getLoopIds(K);
    SmallPtrSet<const Stmt *, 8> InChain;
    for (const Stmt *Loop : collectLoops(K->getBody())) {
      if (InChain.count(Loop))
        continue;
      RewriteSite Site;
      Site.Kernel = Kernel;
      Site.LoopId = LoopIds.lookup(Loop);
      Site.Loc = RC.getDiagLoc(Loop->getBeginLoc());
      Site.Selected = isSelected(P, Kernel, Site.LoopId);
      auto C = std::make_shared<RcChain>();
      Site.Detail = analyzeRowChain(RC, K, Loop, *C);
      Site.Applicable = Site.Detail.empty();
      if (!Site.Applicable) {
        // Report only loops that look like row loops.
        if (!StringRef(Site.Detail).starts_with("not "))
          Sites.push_back({Site, nullptr});
        continue;
      }
      std::vector<std::string> Ids, Cached;
      for (const RcLoop &L : C->Loops) {
        InChain.insert(L.Loop);
        Ids.push_back(LoopIds.lookup(L.Loop));
      }
      for (const RcGroup &G : C->Groups)
        if (G.Cached)
          Cached.push_back("'" + G.Addr + "'");
      Site.ChangesRounding = C->ChangesRounding;
      Site.Reassociates = C->ChangesRounding; // a regrouped float reduction
      Site.Detail = "rows " + join(Cached, ", ") + " read once by " +
                    Ids.front() + " and kept in registers for " +
                    join(ArrayRef<std::string>(Ids).drop_front(), ", ") +
                    " (16-byte packs, up to " + std::to_string(*Packs) +
                    " per thread); every row access packed; guard: n % "
                    "pack == 0, n within the packs, rows aligned and not "
                    "overlapping" +
                    (C->BlockConds.empty() ? ""
                     : C->BlockConds.size() == 1
                         ? ", a one-dimensional block"
                         : ", a one-dimensional power-of-two block (the "
                           "reduction tree's)") +
                    "; fallback: the original loops";
      auto N = std::make_shared<RcNames>();
      N->W = makeFreshName(Ctx, "RcW", Taken);
      N->Fits = makeFreshName(Ctx, "rcFits", Taken);
      N->K = makeFreshName(Ctx, "rcK", Taken);
      N->Pack = makeFreshName(Ctx, "rcPack", Taken);
      N->Lane = makeFreshName(Ctx, "rcLane", Taken);
      std::map<std::string, std::string> TypeNames;
      for (RcGroup &G : C->Groups) {
        std::string &T = TypeNames[G.ElemType];
        if (T.empty()) {
          std::string Base = "RcPack";
          for (char Ch : G.ElemType)
            if (isAlnum(Ch))
              Base += Ch;
          T = makeFreshName(Ctx, Base, Taken);
        }
        N->PackType.push_back(T);
        std::string Ptr = StringRef(G.Addr).split(' ').first.str();
        G.Var = makeFreshName(Ctx, Ptr + (G.Cached ? "Cache" : "Pack"), Taken);
      }
      int64_t PK = *Packs;
      Sites.push_back({Site, [&RC, C, N, PK](EditBatch &Edits) {
                         insertLineBefore(RC, Edits, C->Loops.front().Loop,
                                          generatePrologue(*C, *N, PK));
                         for (const RcLoop &L : C->Loops)
                           Edits.replaceBlock(L.Loop->getSourceRange(),
                                         generateLoop(*C, L, *N, PK));
                       }});
    }
  }
  return std::move(Sites);
}

std::unique_ptr<Rewrite> createRegisterCache() {
  return std::make_unique<RegisterCache>();
}

} // namespace astra
