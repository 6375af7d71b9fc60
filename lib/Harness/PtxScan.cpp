//===- PtxScan.cpp - What the harness reads from PTX text -----------------===//
//
// Kernel entries by their spec name, device-side launches, and module-scope
// `.global` variables that a module stores to. Plain text scans of the PTX
// that clang emits; no CUDA needed.
//
//===----------------------------------------------------------------------===//
#include "astra/Harness/PtxScan.h"
#include "astra/Support/Error.h"
#include "astra/Support/TorchFlags.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Demangle/Demangle.h"
#include <cstring>

using namespace llvm;

namespace astra {

SmallVector<StringRef, 4> splitAtTopLevelCommas(StringRef S, StringRef Opens,
                                                StringRef Closes) {
  SmallVector<StringRef, 4> Pieces;
  int Depth = 0;
  size_t Begin = 0;
  for (size_t I = 0; I <= S.size(); ++I) {
    char C = I < S.size() ? S[I] : ',';
    if (Opens.contains(C))
      ++Depth;
    else if (Closes.contains(C))
      --Depth;
    else if (C == ',' && Depth == 0) {
      Pieces.push_back(S.slice(Begin, I).trim());
      Begin = I + 1;
    }
  }
  return Pieces;
}

/// One template argument as a spec writes it: an integer without the
/// demangler's suffix ("8u" -> "8"), a function by its name ("&float
/// silu<float>(float const&)" -> "silu<float>", as --print-kernel-model
/// prints it).
static std::string canonicalTemplateArg(StringRef Arg) {
  Arg = Arg.trim();
  if (Arg.consume_front("&")) {
    // Drop the parameter list, then the return type before the name.
    if (Arg.ends_with(")")) {
      int Depth = 0;
      for (size_t I = Arg.size(); I-- > 0;) {
        if (Arg[I] == ')')
          ++Depth;
        else if (Arg[I] == '(' && --Depth == 0) {
          Arg = Arg.take_front(I).rtrim();
          break;
        }
      }
    }
    int Depth = 0;
    size_t Start = 0;
    for (size_t I = 0; I < Arg.size(); ++I) {
      if (Arg[I] == '<')
        ++Depth;
      else if (Arg[I] == '>')
        --Depth;
      else if (Arg[I] == ' ' && Depth == 0)
        Start = I + 1;
    }
    return Arg.drop_front(Start).str();
  }
  StringRef Digits = Arg;
  Digits.consume_front("-");
  size_t N = Digits.find_first_not_of("0123456789");
  if (N != 0 && N != StringRef::npos &&
      Digits.drop_front(N).find_first_not_of("uUlL") == StringRef::npos)
    return Arg.drop_back(Digits.size() - N).str();
  return Arg.str();
}

/// \p Name with the arguments of its last template argument list (the
/// kernel's own) made canonical (canonicalTemplateArg).
size_t findTemplateArgsOpen(StringRef Name) {
  if (!Name.ends_with(">"))
    return StringRef::npos;
  int Depth = 0;
  for (size_t I = Name.size(); I-- > 0;) {
    if (Name[I] == '>')
      ++Depth;
    else if (Name[I] == '<' && --Depth == 0)
      return I;
  }
  return StringRef::npos;
}

SmallVector<StringRef, 4> templateArgsOf(StringRef Name) {
  size_t Open = findTemplateArgsOpen(Name);
  if (Open == StringRef::npos)
    return {};
  return splitAtTopLevelCommas(Name.slice(Open + 1, Name.size() - 1), "<(",
                               ">)");
}

static std::string withCanonicalTemplateArgs(StringRef Name) {
  size_t Open = findTemplateArgsOpen(Name);
  if (Open == StringRef::npos)
    return Name.str();
  std::string Out = Name.take_front(Open + 1).str();
  for (StringRef Arg : templateArgsOf(Name))
    Out += (Out.back() == '<' ? "" : ",") + canonicalTemplateArg(Arg);
  return Out + ">";
}

/// The kernel name of a demangled entry, without return type and
/// parameters, spaces removed: "void k<__half>(__half*, int)" -> "k<__half>".
static std::string entryKernelName(StringRef Demangled) {
  // Cut the parameter list: the first '(' outside template brackets.
  int Depth = 0;
  size_t Cut = Demangled.size();
  for (size_t I = 0; I < Demangled.size(); ++I) {
    char C = Demangled[I];
    if (C == '<')
      ++Depth;
    else if (C == '>')
      --Depth;
    else if (C == '(' && Depth == 0) {
      Cut = I;
      break;
    }
  }
  StringRef Name = Demangled.take_front(Cut).trim();
  // A return type precedes the name of a template instantiation; it ends at
  // the last space outside template brackets.
  Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I < Name.size(); ++I) {
    char C = Name[I];
    if (C == '<')
      ++Depth;
    else if (C == '>')
      --Depth;
    else if (C == ' ' && Depth == 0)
      Start = I + 1;
  }
  std::string Out;
  for (char C : withCanonicalTemplateArgs(Name.drop_front(Start)))
    if (C != ' ')
      Out += C;
  return Out;
}

static std::vector<std::string> ptxEntries(StringRef Ptx) {
  std::vector<std::string> Names;
  SmallVector<StringRef, 0> Lines;
  Ptx.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.trim();
    size_t P = L.find(".entry ");
    if (P == StringRef::npos || L.starts_with("//"))
      continue;
    StringRef Rest = L.drop_front(P + 7).trim();
    Names.push_back(Rest.take_until([](char C) {
                          return C == '(' || C == ' ' || C == '\t';
                        })
                        .str());
  }
  return Names;
}

Expected<std::string> findPtxEntry(StringRef Ptx, StringRef SpecName) {
  // `k<at::Half>` names the entry demangled as `k<c10::Half>`.
  std::string Want;
  for (char C : withCanonicalTemplateArgs(SpecName.trim()))
    if (C != ' ')
      Want += C;
  Want = withCanonicalTorchTypes(Want);
  std::vector<std::string> Entries = ptxEntries(Ptx);
  for (const std::string &E : Entries) {
    std::string Name = withCanonicalTorchTypes(entryKernelName(demangle(E)));
    if (Name == Want || StringRef(Name).ends_with("::" + Want))
      return E;
  }
  std::string Have;
  for (const std::string &E : Entries)
    Have += (Have.empty() ? "" : ", ") + entryKernelName(demangle(E));
  return makeInputError(
      "no kernel '" + SpecName + "' in the compiled " + "module (it has: " +
      (Have.empty() ? std::string("no kernels") : Have) + ")" +
      (SpecName.contains('<') ? "; a template must be instantiated in the file"
                              : ""));
}

std::vector<std::string> findDeviceSideLaunches(StringRef Ptx) {
  // Dynamic parallelism: cudaLaunchDevice, cudaGetParameterBuffer (the
  // CUDA 12+ headers call __cudaCDP2LaunchDevice, ...), device graph
  // launches and device-side streams.
  static const char *Names[] = {"LaunchDevice", "GetParameterBuffer", "cudaCDP",
                                "cudaGraphLaunch", "cudaStreamCreate"};
  std::vector<std::string> Found;
  SmallVector<StringRef, 0> Lines;
  Ptx.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.trim();
    if (!L.starts_with(".extern .func") && !L.starts_with(".weak .func"))
      continue;
    for (const char *N : Names)
      if (L.contains(N)) {
        // The whole identifier around the match.
        size_t B = L.find(N), E = B + strlen(N);
        auto IsId = [](char C) { return isAlnum(C) || C == '_' || C == '$'; };
        while (B > 0 && IsId(L[B - 1]))
          --B;
        while (E < L.size() && IsId(L[E]))
          ++E;
        Found.push_back(L.slice(B, E).str());
        break;
      }
  }
  return Found;
}

namespace {

/// The instruction of a PTX line without its predicate guard and the ';':
/// "@%p1 st.global.u32 [x], %r1;" -> "st.global.u32 [x], %r1".
StringRef instruction(StringRef L) {
  L = L.trim();
  if (L.starts_with("@"))
    L = L.drop_until([](char C) { return C == ' ' || C == '\t'; }).trim();
  return L.take_until([](char C) { return C == ';'; }).trim();
}

/// The operands of an instruction, split at top-level commas.
SmallVector<StringRef, 4> operands(StringRef Inst) {
  StringRef Rest =
      Inst.drop_until([](char C) { return C == ' ' || C == '\t'; }).trim();
  return splitAtTopLevelCommas(Rest, "[{", "]}");
}

/// The base of an address or operand: "[x+4]" -> "x", "%rd1+8" -> "%rd1".
StringRef baseOf(StringRef Op) {
  Op = Op.trim();
  if (Op.consume_front("["))
    Op = Op.take_until([](char C) { return C == ']'; });
  return Op.take_until([](char C) { return C == '+' || C == '-'; }).trim();
}

/// The name a module-scope `.global` declaration declares, or "".
StringRef declaredGlobal(StringRef L) {
  SmallVector<StringRef, 8> Words;
  L.take_until([](char C) {
     return C == '=' || C == ';';
   }).split(Words, ' ', -1, false);
  if (Words.empty() || !is_contained(Words, ".global"))
    return "";
  StringRef Name = Words.back().take_until([](char C) { return C == '['; });
  return Name.starts_with(".") ? "" : Name;
}

} // namespace

std::vector<std::string> findGlobalStores(StringRef Ptx) {
  SmallVector<StringRef, 0> Lines;
  Ptx.split(Lines, '\n');
  StringSet<> Globals;
  int Depth = 0;
  for (StringRef L : Lines) {
    StringRef T = L.trim();
    if (Depth == 0 && !T.starts_with("//"))
      if (StringRef Name = declaredGlobal(T); !Name.empty())
        Globals.insert(Name);
    Depth += T.count('{') - T.count('}');
  }
  std::vector<std::string> Stored;
  auto Record = [&](StringRef Name) {
    if (!is_contained(Stored, Name.str()))
      Stored.push_back(Name.str());
  };
  // Registers that hold a global's address (mov, cvta, add of one), per
  // function: a store through them stores to the global.
  StringMap<std::string> Holds;
  for (StringRef L : Lines) {
    StringRef Inst = instruction(L);
    if (Inst.starts_with(".entry") || Inst.starts_with(".func") ||
        Inst.contains(" .entry ") || Inst.contains(" .func "))
      Holds.clear();
    if (Inst.empty() || Inst.starts_with(".") || Inst.starts_with("//"))
      continue;
    StringRef Op =
        Inst.take_until([](char C) { return C == ' ' || C == '\t'; });
    SmallVector<StringRef, 4> Ops = operands(Inst);
    if (Ops.empty())
      continue;
    auto GlobalOf = [&](StringRef Operand) -> std::string {
      StringRef B = baseOf(Operand);
      if (Globals.contains(B))
        return B.str();
      auto It = Holds.find(B);
      return It == Holds.end() ? "" : It->second;
    };
    bool IsStore = Op.starts_with("st.") || Op.starts_with("atom.") ||
                   Op.starts_with("red.");
    if (IsStore) {
      for (StringRef O : Ops)
        if (O.starts_with("["))
          if (std::string G = GlobalOf(O); !G.empty())
            Record(G);
      continue;
    }
    if (Op.starts_with("mov.") || Op.starts_with("cvta.") ||
        Op.starts_with("add.") || Op.starts_with("sub.")) {
      std::string From;
      for (StringRef O : ArrayRef<StringRef>(Ops).drop_front())
        if (From.empty())
          From = GlobalOf(O);
      if (!From.empty())
        Holds[Ops[0]] = From;
      else
        Holds.erase(Ops[0]);
    }
  }
  return Stored;
}

} // namespace astra
