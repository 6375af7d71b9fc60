//===- SpecCheck.cpp - A spec against the kernels' signatures -------------===//
#include "SpecInternal.h"
#include "astra/Support/ErrorText.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include <algorithm>

using namespace llvm;

namespace astra {

using detail::member;
using detail::withoutSpaces;

namespace {



std::string paramList(const KernelSignature &K) {
  std::string S;
  for (const SignatureParam &P : K.Params)
    S += (S.empty() ? "" : ", ") + P.Name;
  return S.empty() ? "none" : S;
}

/// fp8 data is often passed as raw bytes.
bool compatible(DType Spec, DType Param) {
  if (Spec == Param)
    return true;
  bool Fp8 = Spec == DType::FP8E4M3 || Spec == DType::FP8E5M2;
  return Fp8 && (Param == DType::U8 || Param == DType::I8);
}

class Checker {
public:
  Checker(const LaunchSpecFile &F, ArrayRef<KernelSignature> Kernels,
          Error &Errs)
      : F(F), Kernels(Kernels), Errs(Errs) {}

  void run() {
    StringSet<> Seen;
    for (const KernelSpec &K : F.Kernels) {
      if (!K.Kernel.empty() && !Seen.insert(withoutSpaces(K.Kernel)).second)
        err(member(K.Path, "kernel"),
            "kernel '" + K.Kernel + "' is specified twice");
      if (const KernelSignature *Sig = findSignature(K))
        checkArgs(K, *Sig);
      checkShapes(K);
    }
  }

private:
  const LaunchSpecFile &F;
  ArrayRef<KernelSignature> Kernels;
  Error &Errs;
  StringSet<> Reported;

  void err(StringRef Path, const Twine &Msg) {
    Error E = F.error(Path, Msg);
    // The same problem on several shapes: once is enough.
    std::string Text = toString(F.error(Path, Msg));
    if (!Reported.insert(Text).second) {
      consumeError(std::move(E));
      return;
    }
    detail::addError(Errs, std::move(E));
  }

  const KernelSignature *findSignature(const KernelSpec &K) {
    if (K.Kernel.empty())
      return nullptr;
    std::string Want = withoutSpaces(K.Kernel);
    std::string P = member(K.Path, "kernel");
    for (const KernelSignature &S : Kernels) {
      if (S.IsTemplatePattern)
        continue;
      if (withoutSpaces(S.Qualifier + S.Name) == Want)
        return &S;
      if (withoutSpaces(S.Name) != Want)
        continue;
      // The harness names an instantiation from file scope
      // (withInstantiations): one in a namespace needs its qualified name.
      if (!S.TemplateName.empty() && !S.Qualifier.empty())
        err(P, "kernel template '" + S.TemplateName + "' is in '" +
                   StringRef(S.Qualifier).drop_back(2) +
                   "': name the instantiation with it, '" + S.Qualifier +
                   S.Name + "'");
      return &S;
    }
    StringRef Base = K.baseName();
    bool NamesInstantiation = StringRef(K.Kernel).contains('<');
    for (const KernelSignature &S : Kernels) {
      if (!S.IsTemplatePattern ||
          (S.Name != Base && S.Qualifier + S.Name != Base))
        continue;
      std::string Insts;
      for (const KernelSignature &I : Kernels)
        if (I.TemplateName == S.Name && I.Qualifier == S.Qualifier)
          Insts += (Insts.empty() ? "" : ", ") + I.Qualifier + I.Name;
      if (Insts.empty())
        err(P, "kernel template '" + Base +
                   "' has no instantiation in the file: add one, e.g. "
                   "'template __global__ void " + Base + "<float>(...);'");
      else if (NamesInstantiation)
        err(P, "'" + K.Kernel + "' is not an instantiation of kernel "
                   "template '" + Base + "' in the file (instantiations: " +
                   Insts + ")");
      else
        err(P, "'" + Base + "' is a kernel template: name an instantiation (" +
                   Insts + ")");
      return nullptr;
    }
    std::string All;
    for (const KernelSignature &S : Kernels)
      if (S.TemplateName.empty())
        All += (All.empty() ? "" : ", ") + S.Name;
    err(P, "no kernel '" + K.Kernel + "' in the file (kernels: " +
               (All.empty() ? std::string("none") : All) + ")");
    return nullptr;
  }

  void checkArgs(const KernelSpec &K, const KernelSignature &Sig) {
    std::string ArgsPath = member(K.Path, "args");
    StringSet<> SpecNames;
    for (const ArgSpec &A : K.Args)
      if (!A.Name.empty() && !SpecNames.insert(A.Name).second)
        err(member(A.Path, "name"),
            "argument '" + A.Name + "' is given twice");
    // Parameters without an argument.
    for (size_t J = 0; J < Sig.Params.size(); ++J) {
      const SignatureParam &P = Sig.Params[J];
      if (!SpecNames.count(P.Name))
        err(ArgsPath, "missing argument for parameter '" + P.Name +
                          "' of type '" + P.TypeSpelling + "' (parameter " +
                          Twine(J + 1) + " of '" + Sig.Name + "')");
    }
    bool AllKnown = true;
    for (size_t I = 0; I < K.Args.size(); ++I) {
      const ArgSpec &A = K.Args[I];
      if (A.Name.empty())
        continue;
      const SignatureParam *P = nullptr;
      for (const SignatureParam &Q : Sig.Params)
        if (Q.Name == A.Name)
          P = &Q;
      if (!P) {
        AllKnown = false;
        std::string Hint;
        if (I < Sig.Params.size() && !SpecNames.count(Sig.Params[I].Name))
          Hint = "; parameter " + std::to_string(I + 1) + " is '" +
                 Sig.Params[I].Name + "'";
        err(member(A.Path, "name"), "'" + A.Name + "' is not a parameter of '" +
                                        Sig.Name + "' (parameters: " +
                                        paramList(Sig) + ")" + Hint);
        continue;
      }
      if (A.Valid)
        checkArg(A, *P);
    }
    // Order, once every name is known and none is missing.
    if (!AllKnown || K.Args.size() != Sig.Params.size())
      return;
    for (size_t I = 0; I < K.Args.size(); ++I)
      if (K.Args[I].Name != Sig.Params[I].Name)
        err(member(K.Args[I].Path, "name"),
            "argument " + Twine(I + 1) + " is '" + K.Args[I].Name +
                "' but parameter " + Twine(I + 1) + " of '" + Sig.Name +
                "' is '" + Sig.Params[I].Name +
                "': args follow the parameter order (" + paramList(Sig) + ")");
  }

  void checkArg(const ArgSpec &A, const SignatureParam &P) {
    std::string Type = "'" + P.TypeSpelling + "'";
    if (P.IsPointer && A.IsScalar) {
      err(member(A.Path, "value"),
          "parameter '" + P.Name + "' of type " + Type +
              " is a pointer: a buffer takes 'count' and 'role', not "
              "'value'");
      return;
    }
    if (P.IsRecord || A.IsStruct) {
      checkStruct(A, P);
      return;
    }
    if (!P.IsPointer && !A.IsScalar) {
      err(member(A.Path, "count"),
          "parameter '" + P.Name + "' of type " + Type +
              " is a scalar: it takes 'value', not 'count'");
      return;
    }
    if (!P.Elem)
      err(member(A.Path, "dtype"),
          "parameter '" + P.Name + "' of type " + Type +
              " has no spec dtype (element types: float, double, __half, "
              "__nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2, bool and the "
              "integer types)");
    else if (!compatible(A.Type, *P.Elem))
      err(member(A.Path, "dtype"),
          "'" + dtypeName(A.Type) + "' does not match parameter '" + P.Name +
              "' of type " + Type + " (expected " + dtypeName(*P.Elem) + ")");
    if (!A.IsScalar && P.PointeeConst && A.Role != ArgRole::In)
      err(member(A.Path, "role"),
          "role '" + roleName(A.Role) + "' on parameter '" + P.Name +
              "' of type " + Type +
              ": the kernel cannot write through a pointer to const (use "
              "'in')");
  }

  /// A struct passed by value: the spec's size and fields (names, dtypes,
  /// offsets, in order) must be the parameter's, as the target lays it out.
  void checkStruct(const ArgSpec &A, const SignatureParam &P) {
    std::string Type = "'" + P.TypeSpelling + "'";
    if (!A.IsStruct) {
      err(A.Path, "parameter '" + P.Name + "' of type " + Type +
                      " is a struct passed by value: describe it with "
                      "'size' and 'fields' (--emit-spec writes them)");
      return;
    }
    if (!P.IsRecord) {
      err(member(A.Path, "fields"),
          "parameter '" + P.Name + "' of type " + Type +
              " is not a struct passed by value: it takes " +
              (P.IsPointer ? "'count' and 'role'" : "'value'") +
              ", not 'fields'");
      return;
    }
    if (!P.RecordProblem.empty()) {
      err(member(A.Path, "fields"), "parameter '" + P.Name + "' of type " +
                                        Type + " cannot be described: " +
                                        P.RecordProblem);
      return;
    }
    if (A.StructSize && A.StructSize != P.RecordSize)
      err(member(A.Path, "size"),
          "size " + Twine(A.StructSize) + " does not match parameter '" +
              P.Name + "' of type " + Type + " (" + Twine(P.RecordSize) +
              " bytes, aligned to " + Twine(P.RecordAlign) + ")");
    std::vector<std::string> Names;
    for (const SignatureParam::Field &F : P.Fields)
      Names.push_back(F.Name);
    for (size_t I = 0; I < A.Fields.size(); ++I) {
      const FieldSpec &F = A.Fields[I];
      if (!F.Valid)
        continue;
      if (I >= P.Fields.size() || P.Fields[I].Name != F.Name) {
        err(member(F.Path, "name"),
            "field " + Twine(I + 1) + " is '" + F.Name + "' but " +
                (I < P.Fields.size()
                     ? "field " + Twine(I + 1) + " of " + Type + " is '" +
                           P.Fields[I].Name + "'"
                     : Type + " has " + Twine(P.Fields.size()) + " fields") +
                ": fields follow the struct's order (" + join(Names, ", ") +
                ")");
        continue;
      }
      const SignatureParam::Field &Q = P.Fields[I];
      std::string What = "field '" + Q.Name + "' of type '" +
                         Q.TypeSpelling + "'";
      if (!Q.Elem)
        err(member(F.Path, "dtype"),
            What + " has no spec dtype: a struct with such a field cannot "
                   "be passed by the harness");
      else if (!compatible(F.Type, *Q.Elem))
        err(member(F.Path, "dtype"), "'" + dtypeName(F.Type) +
                                         "' does not match " + What +
                                         " (expected " + dtypeName(*Q.Elem) +
                                         ")");
      if (F.Offset != Q.Offset)
        err(member(F.Path, "offset"),
            "offset " + Twine(F.Offset) + " does not match " + What + " at " +
                Twine(Q.Offset) + " in " + Type);
    }
    if (A.Fields.size() < P.Fields.size() && !A.Fields.empty())
      err(member(A.Path, "fields"),
          "missing field '" + P.Fields[A.Fields.size()].Name + "' of " +
              Type + " (fields: " + join(Names, ", ") + ")");
  }

  void checkShapes(const KernelSpec &K) {
    // One report per field: the first shape that breaks it.
    StringSet<> Done;
    for (size_t I = 0; I < K.Shapes.size(); ++I) {
      const Shape &S = K.Shapes[I];
      ResolvedLaunch L;
      detail::resolveReporting(K, S, L, [&](StringRef Path, const Twine &M) {
        if (!Done.insert(Path).second)
          return;
        std::string Msg = M.str();
        if (!StringRef(Msg).contains("shape {"))
          Msg += " (shape " + std::to_string(I) + " {" + S.str() + "})";
        err(Path, Msg);
      }, /*QuietUnbound=*/true);
    }
    checkTunable(K, Done);
  }

  /// Every tunable value lies in its variable's domain and gives a launch
  /// within the limits, with the same buffers, on every shape: one report
  /// per value.
  void checkTunable(const KernelSpec &K, StringSet<> &Done) {
    for (const TunableVar &T : K.Tunable)
      for (size_t V = 0; V < T.Values.size(); ++V) {
        std::string VP = detail::element(T.Path, V);
        LaunchOverrides O;
        cantFail(O.set(T.Name, T.Values[V]));
        for (size_t I = 0; I < K.Shapes.size() && !Done.count(VP); ++I) {
          Shape S = K.Shapes[I];
          S.set(T.Name, T.Values[V]);
          for (const DomainViolation &D : K.domainViolations(S))
            if (D.Var == T.Name && Done.insert(VP).second)
              err(VP, T.Name + " = " + Twine(T.Values[V]) + ": " +
                          D.Requirement + " (shape " + Twine(I) + ")");
          Expected<ResolvedLaunch> L = resolve(K, K.Shapes[I]);
          if (!L) {
            consumeError(L.takeError()); // reported above
            break;
          }
          if (Error E = resolveCandidateLaunch(K, K.Shapes[I], O, *L))
            if (Done.insert(VP).second)
              err(VP, errorText(std::move(E)));
        }
      }
  }
};

} // namespace

Error checkSpec(const LaunchSpecFile &F, ArrayRef<KernelSignature> Kernels) {
  Error Errs = Error::success();
  Checker(F, Kernels, Errs).run();
  return Errs;
}

Error checkSpecText(StringRef JSON, StringRef FileName,
                    ArrayRef<KernelSignature> Kernels) {
  Error Errs = Error::success();
  bool JsonOk;
  LaunchSpecFile F =
      detail::parseSpecCollecting(JSON, FileName, Errs, JsonOk);
  if (JsonOk)
    Checker(F, Kernels, Errs).run();
  if (!Errs)
    return Error::success();
  // Sort by position (stable: errors at one place keep their order).
  std::vector<std::pair<DiagLoc, std::string>> All;
  handleAllErrors(std::move(Errs), [&](const AstraError &A) {
    All.push_back({A.getLoc(), A.getMessage()});
  });
  std::stable_sort(All.begin(), All.end(), [](const auto &A, const auto &B) {
    return std::make_pair(A.first.Line, A.first.Col) <
           std::make_pair(B.first.Line, B.first.Col);
  });
  Error Out = Error::success();
  for (auto &E : All)
    detail::addError(Out, makeInputError(E.first, E.second));
  return Out;
}

//===-- Starting specs ------------------------------------------------------===//

namespace {
std::string quote(StringRef S) {
  std::string Out;
  raw_string_ostream OS(Out);
  OS << json::Value(S.str());
  return Out;
}

StringRef guessRole(const SignatureParam &P) {
  if (P.PointeeConst)
    return "in";
  if (P.Loads && P.Stores)
    return "inout";
  if (P.Loads)
    return "in";
  return "out";
}

/// A struct passed by value: its size and one line per field, with the
/// offsets of the target's layout.
void emitStruct(raw_ostream &OS, const SignatureParam &P, StringRef Indent) {
  OS << ", \"_struct\": " << quote(P.TypeSpelling);
  if (!P.RecordProblem.empty()) {
    OS << ", \"size\": " << P.RecordSize << ", \"fields\": "
       << quote("TODO: cannot be described: " + P.RecordProblem) << "}";
    return;
  }
  OS << ", \"size\": " << P.RecordSize << ", \"fields\": [";
  ListSeparator LS(",");
  for (const SignatureParam::Field &F : P.Fields) {
    OS << LS << "\n"
       << Indent << "      {\"name\": " << quote(F.Name) << ", \"dtype\": "
       << quote(F.Elem ? dtypeName(*F.Elem).str()
                       : "TODO: dtype of '" + F.TypeSpelling + "'")
       << ", \"offset\": " << F.Offset << ", \"value\": "
       << quote("TODO: value") << "}";
  }
  OS << "\n" << Indent << "    ]}";
}

void emitKernel(raw_ostream &OS, const KernelSignature &K, StringRef Indent) {
  OS << Indent << "{\n";
  OS << Indent << "  \"_todo\": "
     << quote("replace every TODO (counts, values, grid, shapes), check "
              "the roles and the block size B, then run astra-opt "
              "--check-spec")
     << ",\n";
  // An instantiation is named from file scope: qualified (findSignature).
  std::string Name = K.TemplateName.empty() && !K.IsTemplatePattern
                         ? K.Name
                         : K.Qualifier + K.Name;
  if (K.IsTemplatePattern)
    Name += "<TODO: template arguments of an instantiation>";
  OS << Indent << "  \"kernel\": " << quote(Name) << ",\n";
  OS << Indent << "  \"args\": [";
  ListSeparator LS(",");
  for (const SignatureParam &P : K.Params) {
    OS << LS << "\n" << Indent << "    {\"name\": " << quote(P.Name);
    if (P.IsRecord) {
      emitStruct(OS, P, Indent);
      continue;
    }
    OS << ", \"dtype\": ";
    if (P.Elem)
      OS << quote(dtypeName(*P.Elem));
    else
      OS << quote("TODO: dtype of '" + P.TypeSpelling + "'");
    if (P.IsPointer) {
      std::string Count = "TODO: number of elements";
      if (P.Lanes > 1)
        Count += " (" + std::to_string(P.Lanes) + " per '" +
                 P.TypeSpelling + "' element)";
      OS << ", \"count\": " << quote(Count)
         << ", \"role\": " << quote(guessRole(P)) << "}";
    } else {
      OS << ", \"value\": " << quote("TODO: value") << "}";
    }
  }
  OS << (K.Params.empty() ? "" : "\n" + Indent.str() + "  ") << "],\n";
  OS << Indent << "  \"grid\": [" << quote("TODO: grid.x") << "],\n";
  OS << Indent << "  \"block\": [\"B\"],\n";
  if (!K.DynamicShared.empty())
    OS << Indent << "  \"shared_bytes\": "
       << quote("TODO: dynamic shared memory in bytes (" +
                join(K.DynamicShared, ", ") + "), e.g. 4*B")
       << ",\n";
  OS << Indent << "  \"shapes\": "
     << quote("TODO: list of shapes binding the block size B and the other "
              "variables, e.g. [{\"n\": 1024, \"B\": 256}, {\"n\": 1048576, "
              "\"B\": 256}]")
     << ",\n";
  // B only sizes the launch: edge shapes keep it (docs/spec.md, "vars").
  OS << Indent << "  \"vars\": {\"B\": {\"vary\": false"
     << (K.HalvesBlockDim ? ", \"power_of_two\": true" : "") << "}}\n";
  OS << Indent << "}";
}
} // namespace

std::string emitStartingSpec(ArrayRef<KernelSignature> Kernels) {
  // One entry per instantiation; a template pattern only when it has none.
  std::vector<const KernelSignature *> Entries;
  for (const KernelSignature &K : Kernels) {
    if (K.IsTemplatePattern &&
        any_of(Kernels, [&](const KernelSignature &I) {
          return I.TemplateName == K.Name;
        }))
      continue;
    Entries.push_back(&K);
  }
  std::string Out;
  raw_string_ostream OS(Out);
  if (Entries.size() == 1) {
    emitKernel(OS, *Entries[0], "");
    OS << "\n";
    return Out;
  }
  OS << "{\n  \"kernels\": [";
  ListSeparator LS(",");
  for (const KernelSignature *K : Entries) {
    OS << LS << "\n";
    emitKernel(OS, *K, "    ");
  }
  OS << (Entries.empty() ? "" : "\n  ") << "]\n}\n";
  return Out;
}

} // namespace astra
