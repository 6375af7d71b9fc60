//===- SpecParseVars.cpp - Spec variable domains and checks ---------------===//
#include "SpecParser.h"

using namespace llvm;

namespace astra {
namespace detail {
namespace specparse {

void SpecParser::parseVars(const json::Value &V, StringRef P, KernelSpec &K) {
  const json::Object *O = V.getAsObject();
  if (!O) {
    err(P, "expected an object mapping shape variables to their domains, "
           "got " +
               kindName(V));
    return;
  }
  for (const std::string &Name : keysInOrder(*O, P)) {
    if (StringRef(Name).starts_with("_"))
      continue;
    std::string VP = member(P, Name);
    // Without shapes (an error reported already) nothing is known.
    if (!K.Shapes.empty() &&
        none_of(K.Shapes, [&](const Shape &S) { return S.lookup(Name); })) {
      std::string Known;
      for (const auto &NV : K.Shapes[0].vars())
        Known += (Known.empty() ? "" : ", ") + NV.first;
      errAt(F.Locator.locateKey(VP),
            VP + ": '" + Name + "' is not a shape variable (shape " +
                "variables: " + (Known.empty() ? "none" : Known) + ")");
      continue;
    }
    const json::Object *DO = O->get(Name)->getAsObject();
    if (!DO) {
      err(VP, "expected an object {\"vary\": false, \"min\": ..., "
              "\"max\": ..., \"multiple_of\": ..., \"divides\": ..., "
              "\"power_of_two\": true}, got " +
                  kindName(*O->get(Name)));
      continue;
    }
    K.Vars.push_back(parseVarDomain(*DO, VP, Name));
  }
}

void SpecParser::parseTunable(const json::Value &V, StringRef P,
                              KernelSpec &K) {
  const json::Object *O = V.getAsObject();
  if (!O) {
    err(P, "expected an object mapping launch variables to their values "
           "({\"B\": [128, 256, 512]}), got " +
               kindName(V));
    return;
  }
  // Where a variable may appear: the launch only.
  std::string Grid = member(K.Path, "grid"), Block = member(K.Path, "block"),
              Shared = member(K.Path, "shared_bytes");
  auto InLaunch = [&](StringRef Path) {
    for (StringRef L : {StringRef(Grid), StringRef(Block)})
      if (Path == L || Path.starts_with((L + "[").str()))
        return true;
    return Path == Shared;
  };
  for (const std::string &Name : keysInOrder(*O, P)) {
    if (StringRef(Name).starts_with("_"))
      continue;
    std::string VP = member(P, Name);
    const VarDomain *D = nullptr;
    for (const VarDomain &VD : K.Vars)
      if (VD.Name == Name)
        D = &VD;
    if (!K.Shapes.empty() &&
        none_of(K.Shapes, [&](const Shape &S) { return S.lookup(Name); })) {
      errAt(F.Locator.locateKey(VP),
            VP + ": '" + Name + "' is not a shape variable");
      continue;
    }
    if (!D || D->Vary) {
      errAt(F.Locator.locateKey(VP),
            VP + ": a tunable variable is part of the launch contract: "
                 "declare it in 'vars' with \"vary\": false");
      continue;
    }
    TunableVar T;
    T.Name = Name;
    T.Path = VP;
    const json::Array *A = O->get(Name)->getAsArray();
    if (!A || A->empty()) {
      err(VP, "expected a non-empty array of positive integers");
      continue;
    }
    bool Ok = true;
    for (size_t I = 0; I < A->size(); ++I) {
      std::optional<int64_t> X = (*A)[I].getAsInteger();
      if (!X || *X < 1) {
        err(element(VP, I), "expected a positive integer, got " +
                                ((*A)[I].getAsNumber()
                                     ? "'" + formatv("{0}", (*A)[I]).str() + "'"
                                     : kindName((*A)[I]).str()));
        Ok = false;
        continue;
      }
      if (!is_contained(T.Values, *X))
        T.Values.push_back(*X);
    }
    forEachExpr(K, [&](const SizeExpr &E, StringRef Path) {
      if (InLaunch(Path) || !is_contained(E.variables(), Name))
        return;
      err(VP, "'" + Name + "' sizes more than the launch: " + Path + " '" +
                  E.text() +
                  "' uses it (a tunable variable may appear only in grid, "
                  "block and shared_bytes: both parties must run on the same "
                  "buffers and arguments)");
      Ok = false;
    });
    if (Ok)
      K.Tunable.push_back(std::move(T));
  }
}

VarDomain SpecParser::parseVarDomain(const json::Object &O, StringRef P,
                                     StringRef Name) {
  VarDomain D;
  D.Name = Name.str();
  D.Path = P.str();
  checkFields(O, P,
              {"vary", "min", "max", "multiple_of", "divides", "power_of_two"});
  auto Flag = [&](StringRef Key, bool &Out) {
    if (const json::Value *B = O.get(Key)) {
      if (std::optional<bool> Val = B->getAsBoolean())
        Out = *Val;
      else
        err(member(P, Key), "expected true or false");
    }
  };
  Flag("vary", D.Vary);
  Flag("power_of_two", D.PowerOfTwo);
  for (auto [Key, Out] : {std::pair<StringRef, SizeExpr *>{"min", &D.Min},
                          {"max", &D.Max},
                          {"multiple_of", &D.MultipleOf},
                          {"divides", &D.Divides}})
    if (const json::Value *E = O.get(Key))
      parseExpr(*E, member(P, Key), *Out);
  return D;
}

bool SpecParser::domainVariablesBound(const KernelSpec &K) {
  for (const VarDomain &D : K.Vars)
    for (const SizeExpr *E : {&D.Min, &D.Max, &D.MultipleOf, &D.Divides})
      for (const std::string &V : E->variables())
        if (any_of(K.Shapes, [&](const Shape &S) { return !S.lookup(V); }))
          return false;
  return true;
}

void SpecParser::checkShapeDomains(const KernelSpec &K) {
  StringSet<> Done;
  for (size_t I = 0; I < K.Shapes.size(); ++I)
    for (const DomainViolation &V : K.domainViolations(K.Shapes[I])) {
      if (!Done.insert(V.Path).second)
        continue;
      err(V.Path, V.Var + " = " + Twine(V.Value) + " in shape " + Twine(I) +
                      " {" + K.Shapes[I].str() + "}: " + V.Requirement);
    }
}

void SpecParser::checkGenReferences(const KernelSpec &K) {
  for (const ArgSpec &A : K.Args) {
    if (!A.Gen || A.Gen->Kind != GenKind::CsrIndices)
      continue;
    const ArgSpec *Ptr = nullptr;
    for (const ArgSpec &B : K.Args)
      if (B.Name == A.Gen->Indptr)
        Ptr = &B;
    if (!Ptr || !Ptr->Gen || Ptr->Gen->Kind != GenKind::CsrIndptr)
      err(member(member(A.Path, "gen"), "indptr"),
          "'" + A.Gen->Indptr +
              "' is not an argument with \"gen\": {\"kind\": "
              "\"csr_indptr\"}");
  }
}

void SpecParser::checkVariables(const KernelSpec &K) {
  forEachExpr(K, [&](const SizeExpr &E, StringRef Path) {
    for (const std::string &V : E.variables())
      for (size_t I = 0; I < K.Shapes.size(); ++I)
        if (!K.Shapes[I].lookup(V)) {
          err(Path, "variable '" + V + "' is not bound by shape " + Twine(I) +
                        " {" + K.Shapes[I].str() + "}");
          break;
        }
  });
}

} // namespace specparse

} // namespace detail
} // namespace astra
