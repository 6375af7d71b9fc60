//===- SpecMode.cpp - --emit-spec and --check-spec ------------------------===//
//
// Both read the kernels' signatures from the Clang AST of the input: each
// kernel, and each instantiation of a kernel template, with its parameters'
// types mapped to spec dtypes, and for pointers whether the body loads or
// stores through them (to guess `in` / `out` / `inout`).
//
//===----------------------------------------------------------------------===//
#include "Modes.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/Parse.h"
#include "astra/Harness/Spec.h"
#include "astra/Support/Output.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Regex.h"

using namespace llvm;
using namespace clang;

namespace astra {

static cl::opt<bool>
    EmitSpec("emit-spec",
             cl::desc("Write a starting launch spec for the input's kernels "
                      "(to -o, default stdout)"),
             cl::cat(AstraCategory));
static cl::opt<bool>
    CheckSpec("check-spec",
              cl::desc("Check the launch spec given with --spec against the "
                       "input's kernels (no GPU needed)"),
              cl::cat(AstraCategory));

namespace {

/// Which pointer parameters the body loads from and stores to, through
/// `p[i]` and `*p` (pointers derived into locals are not followed).
class AccessScanner : public RecursiveASTVisitor<AccessScanner> {
public:
  DenseSet<const ParmVarDecl *> Loads, Stores;

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (!B->isAssignmentOp())
      return true;
    if (const ParmVarDecl *P = accessedParam(B->getLHS())) {
      Stores.insert(P);
      if (B->isCompoundAssignmentOp())
        Loads.insert(P);
      PlainStores.insert(B->getLHS()->IgnoreParens());
    }
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      if (const ParmVarDecl *P = accessedParam(U->getSubExpr())) {
        Stores.insert(P);
        Loads.insert(P);
      }
    if (U->getOpcode() == UO_Deref)
      noteRead(U);
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    noteRead(E);
    return true;
  }

private:
  DenseSet<const clang::Expr *> PlainStores;

  void noteRead(clang::Expr *E) {
    if (PlainStores.count(E))
      return;
    if (const ParmVarDecl *P = accessedParam(E))
      Loads.insert(P);
  }

  static const ParmVarDecl *accessedParam(const clang::Expr *E) {
    E = E->IgnoreParens();
    const clang::Expr *Base = nullptr;
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
      Base = A->getBase();
    else if (const auto *U = dyn_cast<UnaryOperator>(E);
             U && U->getOpcode() == UO_Deref)
      Base = U->getSubExpr();
    if (!Base)
      return nullptr;
    Base = Base->IgnoreParenCasts();
    // p + i
    if (const auto *B = dyn_cast<BinaryOperator>(Base);
        B && B->isAdditiveOp())
      Base = B->getLHS()->getType()->isPointerType()
                 ? B->getLHS()->IgnoreParenCasts()
                 : B->getRHS()->IgnoreParenCasts();
    if (const auto *D = dyn_cast<DeclRefExpr>(Base))
      return dyn_cast<ParmVarDecl>(D->getDecl());
    return nullptr;
  }
};

/// The dtype and lane count of an element type.
std::optional<DType> elementDType(ASTContext &Ctx, QualType T,
                                  unsigned &Lanes) {
  Lanes = 1;
  if (T->isDependentType())
    return std::nullopt;
  QualType C = Ctx.getCanonicalType(T).getUnqualifiedType();
  std::string Name;
  if (const auto *B = C->getAs<BuiltinType>()) {
    PrintingPolicy P(Ctx.getLangOpts());
    Name = B->getName(P).str();
  } else if (const auto *R = C->getAsRecordDecl()) {
    Name = R->getName().str();
  } else {
    return std::nullopt;
  }
  if (std::optional<DType> D = dtypeForTypeName(Name))
    return D;
  // CUDA vector types: float4, int2, __half2, __nv_bfloat162, ...
  if (Name == "__half2" || Name == "half2") {
    Lanes = 2;
    return DType::F16;
  }
  if (Name == "__nv_bfloat162") {
    Lanes = 2;
    return DType::BF16;
  }
  SmallVector<StringRef, 3> M;
  if (Regex("^(u?)(char|short|int|long|longlong|float|double)([1-4])$")
          .match(Name, &M)) {
    static const std::pair<const char *, const char *> Scalar[] = {
        {"char", "char"}, {"short", "short"},    {"int", "int"},
        {"long", "long"}, {"longlong", "long"},  {"float", "float"},
        {"double", "double"}};
    for (const auto &S : Scalar)
      if (M[2] == S.first) {
        std::string Base = (M[1].empty() ? "" : "unsigned ") + std::string(S.second);
        if (M[1].empty() && M[2] == "char")
          Base = "signed char";
        M[3].getAsInteger(10, Lanes);
        return dtypeForTypeName(Base);
      }
  }
  return std::nullopt;
}

SignatureParam describeParam(ASTContext &Ctx, const ParmVarDecl *PV,
                             const AccessScanner &Acc,
                             const ParmVarDecl *PatternPV) {
  SignatureParam P;
  P.Name = PV->getName().str();
  PrintingPolicy Policy = Ctx.getPrintingPolicy();
  Policy.SuppressTagKeyword = true;
  QualType T = PV->getType();
  P.TypeSpelling = T.getAsString(Policy);
  QualType Elem = T;
  if (T->isPointerType()) {
    P.IsPointer = true;
    Elem = T->getPointeeType();
    P.PointeeConst = Elem.isConstQualified();
    P.Loads = Acc.Loads.count(PatternPV);
    P.Stores = Acc.Stores.count(PatternPV);
  }
  P.Elem = elementDType(Ctx, Elem, P.Lanes);
  return P;
}

std::string instantiationName(ASTContext &Ctx, const FunctionDecl *FD,
                              StringRef Base) {
  std::string S = Base.str() + "<";
  raw_string_ostream OS(S);
  PrintingPolicy Policy = Ctx.getPrintingPolicy();
  Policy.SuppressTagKeyword = true;
  Policy.SuppressScope = false;
  if (const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs()) {
    ListSeparator LS(", ");
    for (const TemplateArgument &A : Args->asArray()) {
      OS << LS;
      if (A.getKind() == TemplateArgument::Type)
        A.getAsType().getCanonicalType().print(OS, Policy);
      else
        A.print(Policy, OS, /*IncludeType=*/false);
    }
  }
  OS << ">";
  return S;
}

std::vector<KernelSignature> collectSignatures(ASTContext &Ctx) {
  std::vector<KernelSignature> Out;
  for (const FunctionDecl *K : findKernels(Ctx)) {
    AccessScanner Acc;
    if (K->getBody())
      Acc.TraverseStmt(K->getBody());
    std::string Base = K->getNameAsString();
    auto Describe = [&](const FunctionDecl *FD, KernelSignature &Sig) {
      for (unsigned I = 0; I < FD->getNumParams(); ++I)
        Sig.Params.push_back(describeParam(
            Ctx, FD->getParamDecl(I), Acc,
            I < K->getNumParams() ? K->getParamDecl(I) : nullptr));
    };
    KernelSignature Sig;
    Sig.Name = Base;
    Sig.IsTemplatePattern = K->getDescribedFunctionTemplate() != nullptr;
    Describe(K, Sig);
    Out.push_back(std::move(Sig));
    if (!K->getDescribedFunctionTemplate())
      continue;
    for (const FunctionDecl *I : getInstantiations(K)) {
      KernelSignature IS;
      IS.Name = instantiationName(Ctx, I, Base);
      IS.TemplateName = Base;
      Describe(I, IS);
      Out.push_back(std::move(IS));
    }
  }
  return Out;
}

} // namespace

Error runSpecMode(const CompileSetup &Setup, const InputSource &In,
                  bool &Handled) {
  Handled = EmitSpec || CheckSpec;
  if (!Handled)
    return Error::success();
  if (EmitSpec && CheckSpec)
    return makeInputError("--emit-spec and --check-spec are exclusive");
  if (CheckSpec && SpecFile.empty())
    return makeInputError("--check-spec needs --spec <file.astra.json>");

  std::unique_ptr<MemoryBuffer> SpecText;
  if (CheckSpec) {
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readInputFile(SpecFile);
    if (!Buf)
      return Buf.takeError();
    SpecText = std::move(*Buf);
  }

  std::vector<KernelSignature> Sigs;
  if (Error E = withParsedAST(Setup, In.FileName, In.Code,
                              [&](ASTContext &Ctx) -> Error {
                                Sigs = collectSignatures(Ctx);
                                return Error::success();
                              }))
    return E;

  if (EmitSpec) {
    if (Sigs.empty())
      return makeInputError(In.FileName + ": no __global__ kernel with a "
                                          "body in the file");
    return writeFileAtomically(OutputFile, emitStartingSpec(Sigs));
  }
  if (Error E = checkSpecText(SpecText->getBuffer(), SpecFile, Sigs))
    return E;
  outs() << SpecFile << ": ok\n";
  return Error::success();
}

} // namespace astra
