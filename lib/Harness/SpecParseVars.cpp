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
