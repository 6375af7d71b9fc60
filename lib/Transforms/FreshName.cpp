//===- FreshName.cpp - Identifiers that clash with nothing ----------------===//
#include "FreshName.h"
#include "clang/Basic/IdentifierTable.h"

using namespace llvm;
using namespace clang;

namespace astra {

std::string makeFreshName(ASTContext &Ctx, StringRef Base, StringSet<> &Taken) {
  for (unsigned N = 0;; ++N) {
    std::string Name = N ? (Base + Twine(N)).str() : Base.str();
    if (Ctx.Idents.find(Name) == Ctx.Idents.end() && !Taken.count(Name)) {
      Taken.insert(Name);
      return Name;
    }
  }
}
} // namespace astra
