//===- VectorizeLoadsCodegen.cpp - Source text of a vectorized loop -------===//
//
// Turns a VecLoopPlan into the replacement of the loop. For
//
//   for (int i = threadIdx.x; i < d; i += blockDim.x)
//     out[r * d + i] = f(in[r * d + i]);
//
// with __half elements and 16-byte accesses it produces
//
//   if (reinterpret_cast<size_t>(in + r * d) % 16 == 0 &&
//       reinterpret_cast<size_t>(out + r * d) % 16 == 0) {
//     constexpr int VecW = 8;
//     union VecF16 { uint4 u; __half v[VecW]; };
//     for (int vecIdx = threadIdx.x; vecIdx < (d) / VecW; vecIdx += blockDim.x)
//     {
//       const int vecBase = vecIdx * VecW;
//       VecF16 inVec, outVec;
//       inVec.u = *reinterpret_cast<const uint4 *>(in + r * d + vecBase);
//   #pragma unroll
//       for (int lane = 0; lane < VecW; ++lane) {
//         const int i = vecBase + lane;
//         outVec.v[lane] = f(inVec.v[lane]);
//       }
//       *reinterpret_cast<uint4 *>(out + r * d + vecBase) = outVec.u;
//     }
//     <scalar tail>
//   } else {
//     <the original loop>
//   }
//
//===----------------------------------------------------------------------===//
#include "VectorizeLoadsPlan.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llvm;

namespace astra {

unsigned getVectorWidth(const VecLoopPlan &Plan) {
  if (!Plan.DependentElem.empty())
    return 0;
  unsigned MaxBytes = 1;
  for (const VecGroup &G : Plan.Groups)
    MaxBytes = std::max(MaxBytes, G.ElemBytes);
  return Plan.WidthBytes / MaxBytes;
}

/// Bytes of one access of \p G, as C++ text.
static std::string getAccessBytes(const VecLoopPlan &Plan, const VecGroup &G) {
  if (Plan.MixedFixedBytes)
    return "(" + getWidthText(Plan) + " * sizeof(" + G.ElemType + "))";
  if (!Plan.DependentElem.empty())
    return std::to_string(Plan.WidthBytes);
  return std::to_string(getVectorWidth(Plan) * G.ElemBytes);
}

/// Splits a base offset as written into a symbolic part and a constant:
/// "" -> ("", 0), "3" -> ("", 3), "(row + 1)" -> ("row", 1).
static std::pair<std::string, int64_t> splitConstant(StringRef Base) {
  Base = Base.trim();
  while (Base.starts_with("(") && Base.ends_with(")"))
    Base = Base.drop_front().drop_back().trim();
  int64_t N = 0;
  if (Base.empty() || !Base.getAsInteger(10, N))
    return {"", Base.empty() ? 0 : N};
  for (StringRef Op : {" + ", " - "}) {
    size_t At = Base.rfind(Op);
    if (At == StringRef::npos)
      continue;
    StringRef Tail = Base.drop_front(At + Op.size()).trim();
    if (Tail.getAsInteger(10, N))
      continue;
    return {Base.take_front(At).trim().str(), Op == " - " ? -N : N};
  }
  return {Base.str(), 0};
}

std::string findImpossibleGuard(const VecLoopPlan &Plan) {
  if (!Plan.DependentElem.empty())
    return "";
  unsigned Width = getVectorWidth(Plan);
  for (size_t I = 0; I < Plan.Groups.size(); ++I)
    for (size_t J = I + 1; J < Plan.Groups.size(); ++J) {
      const VecGroup &A = Plan.Groups[I], &B = Plan.Groups[J];
      if (A.Ptr != B.Ptr || !A.ElemBytes || A.ElemBytes != B.ElemBytes)
        continue;
      auto [SymA, CA] = splitConstant(A.Base);
      auto [SymB, CB] = splitConstant(B.Base);
      if (SymA != SymB || CA == CB)
        continue;
      int64_t Apart = (CA > CB ? CA - CB : CB - CA) * A.ElemBytes;
      int64_t Access = int64_t(Width) * A.ElemBytes;
      if (!Access || Apart % Access == 0)
        continue;
      auto Addr = [](const VecGroup &G) {
        return G.Base.empty() ? G.Ptr : G.Ptr + " + " + G.Base;
      };
      return "the alignment guard can never hold: '" + Addr(A) + "' and '" +
             Addr(B) + "' are " + std::to_string(Apart) +
             " bytes apart, so they cannot both be " + std::to_string(Access) +
             "-byte aligned";
    }
  return "";
}

std::string getWidthText(const VecLoopPlan &Plan) {
  if (Plan.DependentElem.empty())
    return std::to_string(getVectorWidth(Plan));
  if (unsigned B = Plan.MixedFixedBytes) {
    const std::string &T = Plan.DependentElem;
    return "(" + std::to_string(Plan.WidthBytes) + " / (sizeof(" + T + ") > " +
           std::to_string(B) + " ? sizeof(" + T + ") : " + std::to_string(B) +
           "))";
  }
  return "(" + std::to_string(Plan.WidthBytes) + " / sizeof(" +
         Plan.DependentElem + "))";
}

std::string describeWidth(const VecLoopPlan &Plan) {
  if (Plan.DependentElem.empty() || Plan.MixedFixedBytes)
    return getWidthText(Plan);
  return std::to_string(Plan.WidthBytes) + " / sizeof(" + Plan.DependentElem +
         ")";
}

std::string getVectorType(const VecLoopPlan &Plan, const VecGroup &G) {
  if (Plan.MixedFixedBytes)
    return "typename " + getUnionName(G) + "::Pack";
  unsigned Bytes = Plan.DependentElem.empty()
                       ? getVectorWidth(Plan) * G.ElemBytes
                       : Plan.WidthBytes;
  if (G.IsFloat && Plan.DependentElem.empty())
    switch (Bytes) {
    case 16:
      return "float4";
    case 8:
      return "float2";
    default:
      return "float";
    }
  switch (Bytes) {
  case 16:
    return "uint4";
  case 8:
    return "uint2";
  case 4:
    return "unsigned int";
  default:
    return "unsigned short";
  }
}

std::string getUnionName(const VecGroup &G) {
  StringRef T = G.ElemType;
  if (T == "float")
    return "VecF32";
  if (T == "__half" || T == "half")
    return "VecF16";
  if (T == "__nv_bfloat16" || T == "nv_bfloat16")
    return "VecBF16";
  std::string Name = "Vec";
  for (char C : T)
    if (isAlnum(C))
      Name += C;
  return Name;
}

static std::string getAddress(const VecLoopPlan &Plan, const VecGroup &G) {
  std::string S = G.Ptr + " + ";
  if (!G.Base.empty())
    S += G.Base + " + ";
  return S + Plan.NameBase;
}

static std::string applyBodyEdits(const VecLoopPlan &Plan) {
  std::vector<BodyEdit> Edits = Plan.BodyEdits;
  llvm::sort(Edits, [](const BodyEdit &A, const BodyEdit &B) {
    return A.Offset < B.Offset;
  });
  std::string Out;
  unsigned Pos = 0;
  for (const BodyEdit &E : Edits) {
    Out += Plan.BodyText.substr(Pos, E.Offset - Pos);
    Out += E.Text;
    Pos = E.Offset + E.Length;
  }
  Out += Plan.BodyText.substr(Pos);
  return Out;
}

/// \p E in parentheses unless it is a name or a number.
static std::string paren(StringRef E) {
  if (all_of(E, [](char C) { return isAlnum(C) || C == '_' || C == '.'; }))
    return E.str();
  return ("(" + E + ")").str();
}

/// Whether \p Text mentions the identifier \p Name.
static bool mentionsName(StringRef Text, StringRef Name) {
  for (size_t Pos = Text.find(Name); Pos != StringRef::npos;
       Pos = Text.find(Name, Pos + 1)) {
    auto IsId = [](char C) { return isAlnum(C) || C == '_'; };
    bool Before = Pos > 0 && IsId(Text[Pos - 1]);
    size_t End = Pos + Name.size();
    bool After = End < Text.size() && IsId(Text[End]);
    if (!Before && !After)
      return true;
  }
  return false;
}

static void writeGuard(raw_ostream &OS, const VecLoopPlan &Plan,
                       std::vector<std::string> Conds = {}) {
  for (const VecGroup &G : Plan.Groups) {
    std::string Addr = G.Ptr;
    if (!G.Base.empty())
      Addr += " + " + G.Base;
    std::string C = "reinterpret_cast<size_t>(" + Addr + ") % " +
                    getAccessBytes(Plan, G) + " == 0";
    if (!is_contained(Conds, C))
      Conds.push_back(C);
  }
  for (const std::string &S : Plan.UnitStrides)
    Conds.push_back(paren(S) + " == 1");
  for (const std::string &D : Plan.DivisibleBy)
    Conds.push_back(paren(D) + " % " + getWidthText(Plan) + " == 0");
  for (const std::string &A : Plan.ApartGuards)
    Conds.push_back(A);
  for (const std::string &B : Plan.BlockGuards)
    Conds.push_back(B);
  for (const std::string &D : Plan.NonZero)
    Conds.push_back(paren(D) + " != 0");
  OS << "if (" << join(Conds, " && ") << ") {\n";
}

/// The comment, `constexpr int VecW = ...;` and one union per element type.
static void writeWidthAndUnions(raw_ostream &OS, const VecLoopPlan &Plan) {
  const std::string &W = Plan.NameW;
  unsigned Width = getVectorWidth(Plan);
  OS << "// astra-opt vectorize-loads: " << Plan.WidthBytes
     << "-byte accesses, " << describeWidth(Plan)
     << " consecutive elements per thread and step; the original loop is "
        "the fallback.\n";
  if (Plan.DependentElem.empty()) {
    OS << "constexpr int " << W << " = " << Width << ";\n";
  } else {
    const std::string &T = Plan.DependentElem;
    OS << "static_assert(" << Plan.WidthBytes << " % sizeof(" << T
       << ") == 0, \"vectorize-loads: the element size must divide "
       << Plan.WidthBytes << " bytes\");\n";
    if (Plan.MixedFixedBytes)
      OS << "constexpr int " << W << " = " << getWidthText(Plan) << ";\n";
    else
      OS << "constexpr int " << W << " = " << Plan.WidthBytes << " / sizeof("
         << T << ");\n";
  }
  // One union per element type.
  std::vector<std::string> Unions;
  for (const VecGroup &G : Plan.Groups) {
    std::string U = getUnionName(G);
    if (is_contained(Unions, U))
      continue;
    Unions.push_back(U);
    if (Plan.MixedFixedBytes)
      // A pack of exactly W elements' bytes, aligned to its size: one
      // access of that size (8 bytes of fp8 beside 16 of bf16).
      OS << "union " << U << " {\n  struct alignas(" << W << " * sizeof("
         << G.ElemType << ")) Pack {\n    unsigned char b[" << W << " * sizeof("
         << G.ElemType << ")];\n  } u;\n  " << G.ElemType << " v[" << W
         << "];\n};\n";
    else
      OS << "union " << U << " {\n  " << getVectorType(Plan, G) << " u;\n  "
         << G.ElemType << " v[" << W << "];\n};\n";
  }
}

static void writeVectorLoop(raw_ostream &OS, const VecLoopPlan &Plan) {
  const std::string &W = Plan.NameW;
  writeWidthAndUnions(OS, Plan);
  OS << "for (" << Plan.IVType << " " << Plan.NameIdx << " = " << Plan.Start
     << "; " << Plan.NameIdx << " < " << paren(Plan.End) << " / " << W << "; "
     << Plan.NameIdx << " += " << Plan.Step << ") {\n";
  if (!Plan.WidenedBody.empty()) {
    OS << "const " << Plan.IVType << " " << Plan.IVName << " = " << Plan.NameIdx
       << " * " << W << ";\n";
    OS << Plan.WidenedBody << "}\n";
    return;
  }
  OS << "const " << Plan.IVType << " " << Plan.NameBase << " = " << Plan.NameIdx
     << " * " << W << ";\n";
  for (const VecGroup &G : Plan.Groups)
    OS << getUnionName(G) << " " << G.Var << ";\n";
  for (const VecGroup &G : Plan.Groups) {
    if (!G.Load)
      continue;
    std::string VT = getVectorType(Plan, G);
    std::string Ptr =
        "reinterpret_cast<const " + VT + " *>(" + getAddress(Plan, G) + ")";
    OS << G.Var << ".u = " << (G.UseLdg ? "__ldg(" + Ptr + ")" : "*" + Ptr)
       << ";\n";
  }
  OS << "#pragma unroll\n";
  OS << "for (int " << Plan.NameLane << " = 0; " << Plan.NameLane << " < " << W
     << "; ++" << Plan.NameLane << ") {\n";
  std::string Body = applyBodyEdits(Plan);
  if (mentionsName(Body, Plan.IVName))
    OS << "const " << Plan.IVType << " " << Plan.IVName << " = "
       << Plan.NameBase << " + " << Plan.NameLane << ";\n";
  OS << Body << "\n}\n";
  for (const VecGroup &G : Plan.Groups)
    if (G.Store)
      OS << "*reinterpret_cast<" << getVectorType(Plan, G) << " *>("
         << getAddress(Plan, G) << ") = " << G.Var << ".u;\n";
  OS << "}\n";
}

static void writeTail(raw_ostream &OS, const VecLoopPlan &Plan) {
  const std::string &I = Plan.IVName;
  std::string VecEnd =
      paren(Plan.End) + " / " + Plan.NameW + " * " + Plan.NameW;
  OS << "// Scalar tail: the last " << paren(Plan.End) << " % " << Plan.NameW
     << " elements, each by the thread that owns it in the original loop.\n";
  if (Plan.Partition == LoopPartition::Sequential) {
    OS << "for (" << Plan.IVType << " " << I << " = " << VecEnd << "; " << I
       << " < " << Plan.End << "; ++" << I << ") {\n"
       << Plan.BodyText << "\n}\n";
    return;
  }
  // The first index >= vecEnd that this thread's original loop visits.
  OS << "const auto " << Plan.NameEnd << " = " << VecEnd << ";\n";
  OS << Plan.IVType << " " << I << " = " << Plan.Start << ";\n";
  OS << "if (" << I << " < " << Plan.NameEnd << ")\n  " << I << " += (("
     << Plan.NameEnd << " - " << I << " - 1) / " << paren(Plan.Step)
     << " + 1) * " << paren(Plan.Step) << ";\n";
  OS << "for (; " << I << " < " << Plan.End << "; " << I << " += " << Plan.Step
     << ") {\n"
     << Plan.BodyText << "\n}\n";
}

/// The original's other exit conditions: with statements after the bound
/// check's block, an exit skips the elements only (an `if` the caller closes;
/// returns true), else it returns.
static bool writeExits(raw_ostream &OS, const VecLoopPlan &Plan) {
  bool Skip = !Plan.OtherExits.empty() && Plan.HasTrailing;
  if (Skip)
    OS << "if (!(" << join(Plan.OtherExits, " || ") << ")) {\n";
  else if (!Plan.OtherExits.empty())
    OS << "if (" << join(Plan.OtherExits, " || ") << ")\n  return;\n";
  return Skip;
}

/// The any-grid form: grid-stride loops over the packs, the tail and, as
/// the fallback, the original's elements, so any grid covers [0, n). With a
/// per-block index (the any-block form) the same loops stride by the block:
/// any block covers [0, n).
static std::string generateAnyGrid(const VecLoopPlan &Plan) {
  std::string S;
  raw_string_ostream OS(S);
  const std::string &W = Plan.NameW, &I = Plan.IVName, &T = Plan.IVType,
                    &Idx = Plan.NameIdx, &Stride = Plan.NameStride;
  std::string End = paren(Plan.End);
  StringRef Stridden = Plan.PerBlock ? "block-stride" : "grid-stride";
  OS << "// " << (Plan.PerBlock ? AnyBlockMarker : AnyGridMarker) << "\n";
  OS << "const " << T << " " << Stride << " = " << Plan.Step << ";\n";
  // Packs only when the launch asks for them (fewer threads than elements):
  // under a launch with a thread per element the original runs as it was,
  // so a grid shrunk only from some size on (launch:min-threads) leaves the
  // small launches as fast as before.
  writeGuard(OS, Plan, {Stride + " < " + End});
  bool Skip = writeExits(OS, Plan);
  writeWidthAndUnions(OS, Plan);
  OS << "for (" << T << " " << Idx << " = " << I << "; " << Idx << " < " << End
     << " / " << W << "; " << Idx << " += " << Stride << ") {\n";
  OS << "const " << T << " " << I << " = " << Idx << " * " << W << ";\n";
  OS << Plan.WidenedBody << "}\n";
  OS << "// Scalar tail: the last " << End << " % " << W << " elements, "
     << Stridden << ".\n";
  OS << "for (" << T << " " << Idx << " = " << End << " / " << W << " * " << W
     << " + " << I << "; " << Idx << " < " << End << "; " << Idx
     << " += " << Stride << ") {\n";
  OS << "const " << T << " " << I << " = " << Idx << ";\n"
     << Plan.RegionText << "\n}\n";
  if (Skip)
    OS << "}\n";
  OS << "} else {\n";
  OS << "// The original, " << Stridden << ".\n";
  OS << "for (" << T << " " << Idx << " = " << I << "; " << Idx << " < " << End
     << "; " << Idx << " += " << Stride << ") {\n";
  OS << "const " << T << " " << I << " = " << Idx << ";\n"
     << Plan.LoopIndent << Plan.LoopText << "\n}\n}";
  return S;
}

std::string generatePerThread(const VecLoopPlan &Plan) {
  if (Plan.AnyGrid)
    return generateAnyGrid(Plan);
  std::string S;
  raw_string_ostream OS(S);
  const std::string &W = Plan.NameW, &I = Plan.IVName, &T = Plan.IVType;
  writeGuard(OS, Plan);
  bool Skip = writeExits(OS, Plan);
  writeWidthAndUnions(OS, Plan);
  // The original runs element i on thread i for i < min(n, threads): so
  // does the vector loop, a pack per thread and step, for any grid (for
  // any block, when the index is threadIdx alone).
  OS << "const " << T << " " << Plan.NameStride << " = " << Plan.Step << ";\n";
  OS << "const " << T << " " << Plan.NameLimit << " = " << paren(Plan.End)
     << " < " << Plan.NameStride << " ? static_cast<" << T << ">(" << Plan.End
     << ") : " << Plan.NameStride << ";\n";
  OS << "for (" << T << " " << Plan.NameIdx << " = " << I << "; "
     << Plan.NameIdx << " < " << Plan.NameLimit << " / " << W << "; "
     << Plan.NameIdx << " += " << Plan.NameStride << ") {\n";
  OS << "const " << T << " " << I << " = " << Plan.NameIdx << " * " << W
     << ";\n";
  OS << Plan.WidenedBody << "}\n";
  OS << "// Scalar tail: the last " << Plan.NameLimit << " % " << W
     << " elements, each by the thread that owns it in the original.\n";
  OS << "if (" << I << " >= " << Plan.NameLimit << " / " << W << " * " << W
     << " && " << I << " < " << Plan.NameLimit << ") {\n"
     << Plan.RegionText << "\n}\n";
  if (Skip)
    OS << "}\n";
  OS << "} else {\n" << Plan.LoopIndent << Plan.LoopText << "\n}";
  return S;
}

std::string generateVectorLoop(const VecLoopPlan &Plan) {
  std::string S;
  raw_string_ostream OS(S);
  // A grid-stride loop under a launch with a thread per element runs one
  // element per thread: packs would leave W - 1 of W threads idle and make
  // each busy one W times longer (0.66x at gelu_tanh_and_mul's T=1 on an
  // H100), so the original runs there.
  // The same for a block-stride loop in the any-block form (`any-grid=1`):
  // under the spec's block, with a thread per element (segment_mean_csr's
  // block of feat_dim threads), the original runs (0.71x with packs at
  // R=1024 on an H100); under launch:block-x-div the packs do. The marker
  // line lets the launch rewrite divide the block; the next line must read
  // the stride (LaunchChecks.cpp).
  if (Plan.Partition == LoopPartition::Block && Plan.AnyGrid)
    OS << "// " << AnyBlockMarker << "\n";
  if (Plan.Partition == LoopPartition::Grid)
    writeGuard(OS, Plan, {paren(Plan.Step) + " < " + paren(Plan.End)});
  else if (Plan.Partition == LoopPartition::Block && Plan.AnyGrid)
    writeGuard(OS, Plan,
               {"static_cast<" + Plan.IVType + ">(" + Plan.Step + ") < " +
                paren(Plan.End)});
  else
    writeGuard(OS, Plan);
  writeVectorLoop(OS, Plan);
  writeTail(OS, Plan);
  OS << "} else {\n" << Plan.LoopIndent << Plan.LoopText << "\n}";
  return S;
}

} // namespace astra
