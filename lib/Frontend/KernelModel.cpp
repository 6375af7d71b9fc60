//===- KernelModel.cpp - Kernels, parameters and instantiations -----------===//
//
// The per-kernel part of the model: names, parameters, template parameters,
// instantiations and mangled names. The body (loops, accesses, calls) is
// analysed in ModelBody.cpp.
//
//===----------------------------------------------------------------------===//
#include "astra/Frontend/KernelModel.h"
#include "ModelBody.h"
#include "ModelSource.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/Parse.h"
#include "astra/Support/TorchFlags.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/TemplateBase.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using llvm::StringRef;

namespace astra {

static ParamInfo buildParam(const ModelSource &Src, const ParmVarDecl *P,
                            bool Written) {
  ASTContext &Ctx = Src.getASTContext();
  ParamInfo PI;
  PI.Name = P->getName().str();
  QualType T = P->getType();
  // The type as written: the text from the start of the declaration up to
  // the name (`const T *__restrict__`).
  if (Written && !PI.Name.empty() && P->getBeginLoc().isFileID() &&
      P->getLocation().isFileID())
    PI.Type = Src.getText(SourceRange(P->getBeginLoc(), P->getLocation()));
  if (!PI.Type.empty() && StringRef(PI.Type).ends_with(PI.Name))
    PI.Type = StringRef(PI.Type).drop_back(PI.Name.size()).rtrim().str();
  else
    PI.Type = Src.print(T);
  if (const auto *PT = T->getAs<PointerType>()) {
    QualType Pointee = PT->getPointeeType();
    PI.Kind = ParamKind::Pointer;
    PI.ElementType = Src.print(Pointee.getUnqualifiedType());
    PI.ConstPointee = Pointee.isConstQualified();
    PI.Restrict = T.isRestrictQualified();
    PI.Dtype = getDtype(Ctx, Pointee, &PI.Lanes);
    return PI;
  }
  QualType U = T.getUnqualifiedType();
  PI.ElementType = Src.print(U);
  PI.Dtype = getDtype(Ctx, U, &PI.Lanes);
  if (PI.Dtype || U->isArithmeticType() || U->isEnumeralType() ||
      U->getAs<TemplateTypeParmType>())
    PI.Kind = ParamKind::Scalar;
  else if (U->isRecordType()) {
    PI.Kind = ParamKind::Record;
    describeRecordParam(Ctx, U, PI);
  }
  return PI;
}

static std::vector<ParamInfo> buildParams(const ModelSource &Src,
                                          const FunctionDecl *FD,
                                          bool Written) {
  std::vector<ParamInfo> Params;
  for (const ParmVarDecl *P : FD->parameters())
    Params.push_back(buildParam(Src, P, Written));
  return Params;
}

static std::vector<TemplateParamInfo>
buildTemplateParams(const ModelSource &Src, const FunctionTemplateDecl *T) {
  std::vector<TemplateParamInfo> Result;
  for (const NamedDecl *ND : *T->getTemplateParameters()) {
    TemplateParamInfo TP;
    TP.Name = ND->getName().str();
    if (isa<TemplateTypeParmDecl>(ND)) {
      TP.Kind = "type";
    } else if (const auto *NT = dyn_cast<NonTypeTemplateParmDecl>(ND)) {
      TP.Kind = "value";
      TP.Type = Src.print(NT->getType());
    } else {
      TP.Kind = "template";
    }
    Result.push_back(std::move(TP));
  }
  return Result;
}

static std::string mangle(MangleContext &MC, const FunctionDecl *FD) {
  if (!MC.shouldMangleDeclName(FD))
    return FD->getName().str();
  std::string S;
  llvm::raw_string_ostream OS(S);
  MC.mangleName(GlobalDecl(FD), OS);
  return S;
}

/// Template arguments of \p Spec: as written in the explicit instantiation
/// where they are, printed (deduced ones) otherwise.
std::vector<std::string> getTemplateArgs(const ModelSource &Src,
                                         const FunctionDecl *Spec) {
  std::vector<std::string> Args;
  const TemplateArgumentList *List = Spec->getTemplateSpecializationArgs();
  if (!List)
    return Args;
  const ASTTemplateArgumentListInfo *Written =
      Spec->getTemplateSpecializationArgsAsWritten();
  PrintingPolicy Policy = Src.getPolicy();
  for (unsigned I = 0; I < List->size(); ++I) {
    std::string Text;
    if (Written && I < Written->NumTemplateArgs)
      Text = Src.getText((*Written)[I].getSourceRange());
    if (Text.empty()) {
      const TemplateArgument &Arg = (*List)[I];
      llvm::raw_string_ostream OS(Text);
      // A function by its name (`silu`, `gelu<float>`), not its address.
      const auto *Fn = Arg.getKind() == TemplateArgument::Declaration
                           ? dyn_cast<FunctionDecl>(Arg.getAsDecl())
                           : nullptr;
      if (Fn)
        Fn->getNameForDiagnostic(OS, Policy, /*Qualified=*/true);
      else
        Arg.print(Policy, OS, /*IncludeType=*/false);
    }
    Args.push_back(std::move(Text));
  }
  return Args;
}

static std::vector<InstantiationInfo>
buildInstantiations(const ModelSource &Src, MangleContext &MC,
                    const KernelInfo &K, const FunctionDecl *FD) {
  std::vector<InstantiationInfo> Result;
  for (const FunctionDecl *Spec : getInstantiations(FD)) {
    // Explicit specializations are separate kernels with their own body;
    // only instantiations of this body belong here.
    TemplateSpecializationKind TSK = Spec->getTemplateSpecializationKind();
    if (TSK == TSK_ExplicitSpecialization || TSK == TSK_Undeclared)
      continue;
    InstantiationInfo I;
    I.TemplateArgs = getTemplateArgs(Src, Spec);
    I.Name = K.Name + "<" + llvm::join(I.TemplateArgs, ", ") + ">";
    I.MangledName = mangle(MC, Spec);
    I.Params = buildParams(Src, Spec, /*Written=*/false);
    I.Explicit = TSK == TSK_ExplicitInstantiationDefinition ||
                 TSK == TSK_ExplicitInstantiationDeclaration;
    Result.push_back(std::move(I));
  }
  return Result;
}

static std::string getQualifier(const FunctionDecl *FD) {
  std::string Q;
  for (const DeclContext *DC = FD->getDeclContext(); DC;
       DC = DC->getParent()) {
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Q = (NS->isAnonymousNamespace() ? std::string("(anonymous)")
                                      : NS->getName().str()) +
          "::" + Q;
    else if (const auto *RD = dyn_cast<RecordDecl>(DC))
      Q = RD->getName().str() + "::" + Q;
  }
  return Q;
}

llvm::Expected<KernelModel> buildKernelModel(ASTContext &Ctx, StringRef FileName) {
  ModelSource Src(Ctx, FileName);
  std::unique_ptr<MangleContext> MC(Ctx.createMangleContext());
  KernelModel M;
  M.File = FileName.str();
  for (const FunctionDecl *FD : findKernels(Ctx)) {
    KernelInfo K;
    K.Name = FD->getName().str();
    K.Qualifier = getQualifier(FD);
    K.Loc = Src.getLoc(FD->getLocation());
    K.Params = buildParams(Src, FD, /*Written=*/true);
    if (const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate()) {
      K.TemplateParams = buildTemplateParams(Src, T);
      K.Instantiations = buildInstantiations(Src, *MC, K, FD);
    } else if (!FD->isDependentContext()) {
      K.MangledName = mangle(*MC, FD);
    }
    analyzeKernelBody(Src, FD, K);
    M.Kernels.push_back(std::move(K));
  }
  return M;
}

llvm::Expected<KernelModel> loadKernelModel(const CompileSetup &Setup,
                                      StringRef FileName, StringRef Code) {
  KernelModel Result;
  llvm::Error E = withParsedAST(Setup, FileName, Code,
                          [&](ASTContext &Ctx) -> llvm::Error {
                            Expected<KernelModel> M =
                                buildKernelModel(Ctx, FileName);
                            if (!M)
                              return M.takeError();
                            Result = std::move(*M);
                            return llvm::Error::success();
                          });
  if (E)
    return std::move(E);
  return Result;
}

static std::string removeSpaces(StringRef S) {
  std::string Out;
  for (char C : S)
    if (!llvm::isSpace(C))
      Out += C;
  return Out;
}

const InstantiationInfo *KernelInfo::findInstantiation(StringRef Args) const {
  // `k<at::Half>` names the instantiation printed as `k<c10::Half>`.
  std::string Want = withCanonicalTorchTypes(removeSpaces(Args));
  for (const InstantiationInfo &I : Instantiations)
    if (withCanonicalTorchTypes(
            removeSpaces(llvm::join(I.TemplateArgs, ","))) == Want)
      return &I;
  return nullptr;
}

const LoopInfo *KernelInfo::findLoop(StringRef Id) const {
  for (const LoopInfo &L : Loops)
    if (L.Id == Id)
      return &L;
  return nullptr;
}

const KernelInfo *KernelModel::findKernel(StringRef Name,
                                          const InstantiationInfo **Inst) const {
  if (Inst)
    *Inst = nullptr;
  Name = Name.trim();
  StringRef Base = Name, Args;
  size_t Lt = Name.find('<');
  if (Lt != StringRef::npos && Name.ends_with(">")) {
    Base = Name.take_front(Lt).rtrim();
    Args = Name.slice(Lt + 1, Name.size() - 1);
  }
  for (const KernelInfo &K : Kernels) {
    if (K.Name != Base && K.Qualifier + K.Name != Base)
      continue;
    if (Lt == StringRef::npos)
      return &K;
    if (const InstantiationInfo *I = K.findInstantiation(Args)) {
      if (Inst)
        *Inst = I;
      return &K;
    }
  }
  return nullptr;
}

} // namespace astra
