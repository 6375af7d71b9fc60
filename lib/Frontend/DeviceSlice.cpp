//===- DeviceSlice.cpp - Keep host code from blocking the device side -----===//
#include "astra/Frontend/DeviceSlice.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"
#include <mutex>

using namespace llvm;
using namespace clang;

namespace astra {

void ErrorRecorder::HandleDiagnostic(DiagnosticsEngine::Level Level,
                                     const Diagnostic &Info) {
  DiagnosticChain::HandleDiagnostic(Level, Info); // counts, prints
  if (Level >= DiagnosticsEngine::Error) {
    SmallString<128> Msg;
    Info.FormatDiagnostic(Msg);
    Errors.push_back({Info.getLocation(),
                      Msg.str().str(),
                      {},
                      Level == DiagnosticsEngine::Fatal});
    InError = true;
    return;
  }
  if (Level != DiagnosticsEngine::Note) {
    InError = false;
    return;
  }
  if (!InError || !Info.getLocation().isValid())
    return;
  // Notes that follow an error: keep the points of instantiation, which lead
  // from a template's body (often in a header) to the code that used it.
  SmallString<128> Msg;
  Info.FormatDiagnostic(Msg);
  if (StringRef(Msg).contains("requested here"))
    Errors.back().InstantiatedAt.push_back(Info.getLocation());
}

namespace {
/// A function body written out in the main file.
struct Body {
  const FunctionDecl *Fn;
  unsigned Begin, End; ///< offsets of `{` and one past `}`
  bool Device;
  bool Lambda;
};

class BodyCollector : public RecursiveASTVisitor<BodyCollector> {
public:
  explicit BodyCollector(ASTContext &Ctx) : Ctx(Ctx) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitLambdaBodies() const { return true; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    add(FD, /*Lambda=*/false);
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *L) {
    add(L->getCallOperator(), /*Lambda=*/true);
    return true;
  }
  std::vector<Body> Bodies;

private:
  void add(const FunctionDecl *FD, bool Lambda) {
    if (!FD || !FD->doesThisDeclarationHaveABody() || !FD->getBody())
      return;
    const SourceManager &SM = Ctx.getSourceManager();
    SourceRange R = FD->getBody()->getSourceRange();
    if (R.getBegin().isMacroID() || R.getEnd().isMacroID() ||
        !SM.isInMainFile(R.getBegin()))
      return;
    unsigned B = SM.getFileOffset(R.getBegin());
    unsigned E = SM.getFileOffset(R.getEnd()) + 1; // the `}`
    // Constructors: the initializers go with the body (Clang drops those
    // in error, so they are found in the text: the `:` after the `)`).
    if (isa<CXXConstructorDecl>(FD))
      if (FunctionTypeLoc TL = FD->getFunctionTypeLoc())
        if (TL.getRParenLoc().isFileID())
          B = colonAfter(SM.getFileOffset(TL.getRParenLoc()), B, SM);
    // Lambdas without attributes are implicitly __host__ __device__ (and
    // constexpr) in Clang and are device code only when device code calls
    // them: inside a host function they go with it. Only an explicit
    // __device__ counts for them.
    const auto *DA = FD->getAttr<CUDADeviceAttr>();
    bool Device =
        Lambda ? DA && !DA->isImplicit()
               : DA || FD->hasAttr<CUDAGlobalAttr>() || FD->isConstexpr();
    Bodies.push_back({FD, B, E, Device, Lambda});
  }

  /// The offset of the `:` that starts a constructor's initializers, between
  /// its `)` at \p From and its body at \p Body; \p Body when none.
  static unsigned colonAfter(unsigned From, unsigned Body,
                             const SourceManager &SM) {
    StringRef Between = SM.getBufferData(SM.getMainFileID()).slice(From, Body);
    size_t Colon = Between.find(':');
    if (Colon == StringRef::npos || Between.substr(Colon).starts_with("::"))
      return Body;
    return From + Colon;
  }
  ASTContext &Ctx;
};

std::string describe(const FunctionDecl *FD) {
  std::string Name = FD->getQualifiedNameAsString();
  return Name.empty() ? std::string("(anonymous)") : Name;
}

DiagLoc toDiagLoc(const SourceManager &SM, SourceLocation L) {
  PresumedLoc P = SM.getPresumedLoc(SM.getFileLoc(L));
  if (P.isInvalid())
    return {};
  return {P.getFilename(), P.getLine(), P.getColumn()};
}
} // namespace

std::optional<std::vector<HostCut>>
planHostCuts(ASTContext &Ctx, ArrayRef<RecordedError> Errors) {
  const SourceManager &SM = Ctx.getSourceManager();
  BodyCollector C(Ctx);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());

  std::vector<HostCut> Cuts;
  for (const RecordedError &E : Errors) {
    // Where the error is, or where the template it is in was instantiated
    // from the main file.
    std::vector<SourceLocation> Candidates = {E.Loc};
    Candidates.insert(Candidates.end(), E.InstantiatedAt.begin(),
                      E.InstantiatedAt.end());
    std::optional<unsigned> Off;
    for (SourceLocation L : Candidates) {
      if (L.isInvalid())
        continue;
      SourceLocation F = SM.getExpansionLoc(L);
      if (SM.isInMainFile(F)) {
        Off = SM.getFileOffset(F);
        break;
      }
    }
    if (!Off)
      return std::nullopt;
    // The innermost body decides host or device; the outermost is cut.
    const Body *Inner = nullptr, *Outer = nullptr;
    for (const Body &B : C.Bodies) {
      if (*Off < B.Begin || *Off >= B.End)
        continue;
      if (!Inner || B.End - B.Begin < Inner->End - Inner->Begin)
        Inner = &B;
      if (!Outer || B.End - B.Begin > Outer->End - Outer->Begin)
        Outer = &B;
    }
    if (!Inner || Inner->Device || Outer->Device)
      return std::nullopt;
    bool Known =
        any_of(Cuts, [&](const HostCut &H) { return H.Begin == Outer->Begin; });
    if (Known)
      continue;
    HostCut H;
    H.Begin = Outer->Begin;
    H.End = Outer->End;
    H.KeepBraces = Outer->Lambda;
    H.Function = Outer->Lambda ? "lambda" : describe(Outer->Fn);
    H.Where = toDiagLoc(SM, Outer->Lambda ? SourceLocation(SM.getComposedLoc(
                                                SM.getMainFileID(), H.Begin))
                                          : Outer->Fn->getLocation());
    H.ErrorLoc = toDiagLoc(SM, E.Loc);
    H.Error = E.Message;
    Cuts.push_back(std::move(H));
  }
  if (Cuts.empty())
    return std::nullopt;
  return Cuts;
}

std::string applyHostCuts(StringRef Code, ArrayRef<HostCut> Cuts) {
  std::string Out = Code.str();
  for (const HostCut &H : Cuts) {
    if (H.End > Out.size() || H.Begin >= H.End)
      continue;
    for (unsigned I = H.Begin; I < H.End; ++I)
      if (Out[I] != '\n' && Out[I] != '\r')
        Out[I] = ' ';
    if (H.KeepBraces) {
      Out[H.Begin] = '{';
      Out[H.End - 1] = '}';
    } else {
      Out[H.Begin] = ';';
    }
  }
  return Out;
}

void warnHostCuts(const CompileSetup &Setup, StringRef FileName,
                  ArrayRef<HostCut> Cuts) {
  if (is_contained(Setup.ExtraArgs, "-w"))
    return;
  static std::mutex Lock;
  static StringSet<> Shown;
  std::lock_guard<std::mutex> Guard(Lock);
  for (const HostCut &H : Cuts) {
    std::string Msg;
    raw_string_ostream OS(Msg);
    OS << "host function '" << H.Function
       << "' left out of the device-side compile: Clang's CUDA mode rejects "
          "it (";
    if (H.ErrorLoc.Line)
      OS << H.ErrorLoc.File << ":" << H.ErrorLoc.Line << ":" << H.ErrorLoc.Col
         << ": ";
    OS << "error: " << H.Error << "); the kernels are compiled without it";
    DiagLoc Where = H.Where;
    if (Where.File.empty())
      Where.File = FileName.str();
    std::string Key = Where.File + ":" + std::to_string(Where.Line) + Msg;
    if (!Shown.insert(Key).second)
      continue;
    printDiag(errs(), Where, "warning", Msg);
  }
}

} // namespace astra
