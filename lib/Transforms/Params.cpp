//===- Params.cpp - Typed parameters of the rewrites ----------------------===//
#include "astra/Transforms/Rewrite.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace astra {

StringRef getParamKindName(RewriteParamKind K) {
  switch (K) {
  case RewriteParamKind::Int:
    return "int";
  case RewriteParamKind::Bool:
    return "bool";
  case RewriteParamKind::Enum:
    return "enum";
  case RewriteParamKind::Subset:
    return "subset";
  case RewriteParamKind::Name:
    return "name";
  }
  llvm_unreachable("unknown parameter kind");
}

std::string ParamDesc::describeType() const {
  std::string Out = getParamKindName(Kind).str();
  switch (Kind) {
  case RewriteParamKind::Int:
    if (!Choices.empty())
      return Out + " " + join(Choices, "|");
    return Out + " " + std::to_string(Min) + ".." + std::to_string(Max);
  case RewriteParamKind::Bool:
    return Out + " 0|1";
  case RewriteParamKind::Enum:
    return Out + " " + join(Choices, "|");
  case RewriteParamKind::Subset:
    return Out + " all|" + join(Choices, "+");
  case RewriteParamKind::Name:
    return Out + " (an identifier)";
  }
  llvm_unreachable("unknown parameter kind");
}

Error ParamDesc::check(StringRef Rewrite, StringRef Value) const {
  auto Refuse = [&](const Twine &Allowed) {
    return makeInputError("rewrite '" + Rewrite + "': parameter '" + Key +
                          "' must be " + Allowed + ", got '" + Value + "'");
  };
  auto OneOf = [&](ArrayRef<std::string> Names) {
    return "one of " + join(Names, ", ");
  };
  switch (Kind) {
  case RewriteParamKind::Int: {
    int64_t V;
    if (Value.getAsInteger(10, V))
      return Refuse(Choices.empty()
                        ? "an integer from " + Twine(Min) + " to " + Twine(Max)
                        : Twine(OneOf(Choices)));
    if (!Choices.empty()) {
      if (!is_contained(Choices, std::to_string(V)))
        return Refuse(OneOf(Choices));
    } else if (V < Min || V > Max) {
      return Refuse("between " + Twine(Min) + " and " + Twine(Max));
    }
    return Error::success();
  }
  case RewriteParamKind::Bool:
    if (Value != "0" && Value != "1")
      return Refuse("0 or 1");
    return Error::success();
  case RewriteParamKind::Enum:
    if (!is_contained(Choices, Value))
      return Refuse(OneOf(Choices));
    return Error::success();
  case RewriteParamKind::Subset: {
    if (Value == "all")
      return Error::success();
    SmallVector<StringRef, 16> Parts;
    Value.split(Parts, '+');
    for (StringRef Part : Parts)
      if (!is_contained(Choices, Part.trim()))
        return makeInputError("rewrite '" + Rewrite + "': unknown value '" +
                              Part + "' in " + Key + "=" + Value +
                              "; known: all, " + join(Choices, "+"));
    return Error::success();
  }
  case RewriteParamKind::Name:
    if (!Value.empty() && !(isAlpha(Value[0]) || Value[0] == '_'))
      return Refuse("an identifier");
    if (!all_of(Value, [](char C) { return isAlnum(C) || C == '_'; }))
      return Refuse("an identifier");
    return Error::success();
  }
  llvm_unreachable("unknown parameter kind");
}

} // namespace astra
