//===- KernelSource.cpp - Source-level edits of whole kernels -------------===//
#include "astra/Frontend/KernelSource.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Frontend/Parse.h"
#include "astra/Support/Error.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace clang;

namespace astra {

std::string withInstantiations(StringRef Code, ArrayRef<std::string> Names) {
  std::string Out = Code.str();
  unsigned N = 0;
  for (const std::string &Name : Names) {
    if (!StringRef(Name).contains('<'))
      continue;
    Out += formatv("\nstatic void *const __astra_instantiate_{0} = "
                   "(void *)&{1};\n",
                   N++, Name)
               .str();
  }
  return Out;
}

Expected<std::string> replaceKernelDefinition(const CompileSetup &Setup,
                                              StringRef FileName,
                                              StringRef Code, StringRef Kernel,
                                              StringRef NewSource) {
  std::optional<std::pair<unsigned, unsigned>> Range;
  std::vector<std::string> Names;
  Error E = withParsedAST(Setup, FileName, Code, [&](ASTContext &Ctx) -> Error {
    const SourceManager &SM = Ctx.getSourceManager();
    for (const FunctionDecl *K : findKernels(Ctx)) {
      Names.push_back(K->getNameAsString());
      if (K->getName() != Kernel)
        continue;
      const Decl *Whole = K;
      if (const FunctionTemplateDecl *T = K->getDescribedFunctionTemplate())
        Whole = T;
      CharSourceRange R = CharSourceRange::getTokenRange(
          SM.getExpansionRange(Whole->getSourceRange()).getAsRange());
      R = Lexer::makeFileCharRange(R, SM, Ctx.getLangOpts());
      if (R.isInvalid() || !SM.isInMainFile(R.getBegin()))
        return makeInputError("kernel '" + Kernel +
                              "' is not written out in the main file");
      Range.emplace(SM.getFileOffset(R.getBegin()),
                    SM.getFileOffset(R.getEnd()));
      return Error::success();
    }
    return Error::success();
  });
  if (E)
    return std::move(E);
  if (!Range)
    return makeInputError(DiagLoc{FileName.str()},
                          "no kernel '" + Kernel + "' in the file; kernels: " +
                              (Names.empty() ? std::string("none")
                                             : join(Names, ", ")));
  std::string Out = Code.substr(0, Range->first).str();
  Out += NewSource;
  Out += Code.substr(Range->second);
  return Out;
}

} // namespace astra
