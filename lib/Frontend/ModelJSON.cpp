//===- ModelJSON.cpp - Print the KernelModel as JSON ----------------------===//
#include "astra/Frontend/KernelModel.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace astra {

StringRef toString(ParamKind K) {
  switch (K) {
  case ParamKind::Pointer:
    return "pointer";
  case ParamKind::Scalar:
    return "scalar";
  case ParamKind::Record:
    return "record";
  case ParamKind::Other:
    break;
  }
  return "other";
}

StringRef toString(LoopClass C) {
  switch (C) {
  case LoopClass::GridStride:
    return "grid-stride";
  case LoopClass::BlockStride:
    return "block-stride";
  case LoopClass::Plain:
    break;
  }
  return "plain";
}

StringRef toString(LoopKind K) {
  switch (K) {
  case LoopKind::For:
    return "for";
  case LoopKind::While:
    return "while";
  case LoopKind::Do:
    return "do";
  case LoopKind::RangeFor:
    return "range-for";
  }
  llvm_unreachable("unknown loop kind");
}

StringRef toString(AccessKind K) {
  switch (K) {
  case AccessKind::Load:
    return "load";
  case AccessKind::Store:
    return "store";
  case AccessKind::LoadStore:
    break;
  }
  return "load-store";
}

/// Adds "line" and "col" of \p Loc to \p O (everything in the model lies in
/// the model's file).
static void addLoc(json::Object &O, const DiagLoc &Loc) {
  O["line"] = Loc.Line;
  O["col"] = Loc.Col;
}

/// Sets \p Key only when \p Value is not empty (keeps the JSON readable).
static void addIfSet(json::Object &O, StringRef Key, const std::string &V) {
  if (!V.empty())
    O[Key] = V;
}

json::Value toJSON(const ParamInfo &P) {
  json::Object O{{"name", P.Name},
                 {"type", P.Type},
                 {"kind", toString(P.Kind)},
                 {"element_type", P.ElementType},
                 {"dtype", P.Dtype ? dtypeName(*P.Dtype) : ""}};
  if (P.Lanes != 1)
    O["lanes"] = P.Lanes;
  if (P.Kind == ParamKind::Pointer) {
    O["const"] = P.ConstPointee;
    O["restrict"] = P.Restrict;
  }
  return O;
}

json::Value toJSON(const LoopInfo &L) {
  json::Object O{{"id", L.Id},
                 {"kind", toString(L.Kind)},
                 {"class", toString(L.Class)},
                 {"induction_var", L.InductionVar},
                 {"init", L.Init},
                 {"compare", L.Compare},
                 {"bound", L.Bound},
                 {"step", L.Step},
                 {"condition", L.Condition},
                 {"parent", L.ParentId.empty() ? json::Value(nullptr)
                                               : json::Value(L.ParentId)},
                 {"depth", L.Depth},
                 {"from_macro", L.FromMacro}};
  O["dim"] = L.Dim.empty() ? json::Value(nullptr) : json::Value(L.Dim);
  O["trip_count"] =
      L.TripCount ? json::Value(*L.TripCount) : json::Value(nullptr);
  addLoc(O, L.Loc);
  return O;
}

json::Value toJSON(const AccessInfo &A) {
  json::Object O{{"pointer", A.Pointer},
                 {"kind", toString(A.Kind)},
                 {"index", A.Index},
                 {"text", A.Text},
                 {"element_type", A.ElementType},
                 {"loop", A.LoopId.empty() ? json::Value(nullptr)
                                           : json::Value(A.LoopId)},
                 {"unit_stride", A.UnitStride}};
  addIfSet(O, "via", A.Via);
  addIfSet(O, "base_offset", A.BaseOffset);
  addIfSet(O, "runtime_stride", A.RuntimeStride);
  if (A.ConstStride)
    O["stride"] = *A.ConstStride;
  if (A.Atomic)
    O["atomic"] = true;
  addLoc(O, A.Loc);
  return O;
}

json::Value toJSON(const CallInfo &C) {
  json::Object O{{"name", C.Name},
                 {"text", C.Text},
                 {"type", C.Type},
                 {"loop", C.LoopId.empty() ? json::Value(nullptr)
                                           : json::Value(C.LoopId)}};
  addIfSet(O, "function", C.Function);
  addLoc(O, C.Loc);
  // A helper may live in a project header.
  if (!C.Function.empty())
    O["file"] = C.Loc.File;
  return O;
}

json::Value toJSON(const SharedArrayInfo &S) {
  json::Object O{{"name", S.Name},
                 {"element_type", S.ElementType},
                 {"size", S.Size},
                 {"dynamic", S.Dynamic}};
  O["bytes"] = S.Bytes ? json::Value(*S.Bytes) : json::Value(nullptr);
  addLoc(O, S.Loc);
  return O;
}

template <typename T> static json::Array toArray(const std::vector<T> &V) {
  json::Array A;
  for (const T &X : V)
    A.push_back(toJSON(X));
  return A;
}

static json::Value toJSON(const TemplateParamInfo &P) {
  json::Object O{{"name", P.Name}, {"kind", P.Kind}};
  addIfSet(O, "type", P.Type);
  return O;
}

static json::Value toJSON(const InstantiationInfo &I) {
  json::Array Args;
  for (const std::string &A : I.TemplateArgs)
    Args.push_back(A);
  return json::Object{{"name", I.Name},
                      {"template_args", std::move(Args)},
                      {"mangled_name", I.MangledName},
                      {"explicit", I.Explicit},
                      {"params", toArray(I.Params)}};
}

json::Value toJSON(const KernelInfo &K) {
  json::Object O{{"name", K.Name}};
  addIfSet(O, "qualifier", K.Qualifier);
  addLoc(O, K.Loc);
  if (K.isTemplate()) {
    O["template_params"] = toArray(K.TemplateParams);
    O["instantiations"] = toArray(K.Instantiations);
  } else {
    O["mangled_name"] = K.MangledName;
  }
  json::Array Calls;
  for (const std::string &C : K.DeviceCalls)
    Calls.push_back(C);
  O["params"] = toArray(K.Params);
  O["loops"] = toArray(K.Loops);
  O["accesses"] = toArray(K.Accesses);
  O["math_calls"] = toArray(K.MathCalls);
  O["shared_arrays"] = toArray(K.SharedArrays);
  O["barriers"] = toArray(K.Barriers);
  O["warp_intrinsics"] = toArray(K.WarpIntrinsics);
  O["intrinsics"] = toArray(K.Intrinsics);
  O["device_calls"] = std::move(Calls);
  return O;
}

json::Value toJSON(const KernelModel &M) {
  return json::Object{{"file", M.File}, {"kernels", toArray(M.Kernels)}};
}

std::string printKernelModel(const KernelModel &M) {
  return formatv("{0:2}", toJSON(M)).str() + "\n";
}

} // namespace astra
