//===- KeepOriginal.cpp - A copy of a kernel for the small launches -------===//
//
// keep-original: a verbatim copy of kernel `k`, named `k_small`, placed right
// after it (a kernel template's explicit instantiations are copied too:
// `template __global__ void k_small<float>(...);` after each one). Put first
// in a plan, the copy is the original code; the plan's other steps select
// `kernel=k` and leave it as it is, and its launch step with
// `min-threads=N,small-entry=1` makes the launches below N threads run
// `k_small` under the spec's launch (the harness runs it there; the launch
// contract tells a caller so). One kernel per size range: a rewrite that pays
// on large launches (16-byte packs under a divided grid) no longer costs the
// small ones the registers and the fallback of its form.
//
// It changes no code that runs: the copy is a new entry. Refused when the
// name `k_small` is taken, when the file already keeps `k`, when the kernel
// lies in a macro, and for a template whose instantiations the file does not
// write (an implicit one, from a launch, would not instantiate the copy).
// Not enumerated: it only pays with the launch step that uses it, and the
// search proposes the two together (docs/agents.md).
//
//===----------------------------------------------------------------------===//
#include "EditBatch.h"
#include "LaunchTemplate.h"
#include "Rewrites.h"
#include "SiteUtil.h"
#include "astra/Frontend/Kernels.h"
#include "astra/Harness/Spec.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace llvm;
using namespace clang;

namespace astra {

std::string keepOriginalMarker(StringRef Kernel) {
  return ("// astra-opt keep-original: " + Kernel +
          " as it was, for the launches below the plan's min-threads bound "
          "(small-entry)")
      .str();
}

namespace {

class KeepOriginal : public Rewrite {
public:
  StringRef getName() const override { return "keep-original"; }
  StringRef getDescription() const override {
    return "a copy of the kernel as it is, k_small, that the launches below "
           "the plan's min-threads bound run (launch:...,small-entry=1)";
  }
  bool isEnumerated() const override { return false; }

protected:
  Expected<std::vector<PlannedSite>>
  plan(RewriteContext &RC, const RewriteParams &P) const override;
};

/// The written range of \p K's whole definition: its template header, and
/// an `extern "C"` without braces in front of it.
SourceRange definitionRange(const FunctionDecl *K) {
  const Decl *D = K;
  if (const FunctionTemplateDecl *T = K->getDescribedFunctionTemplate())
    D = T;
  if (const auto *L = dyn_cast<LinkageSpecDecl>(D->getDeclContext()))
    if (!L->hasBraces())
      D = L;
  return D->getSourceRange();
}

/// Why \p NewName cannot be the copy's name, or empty: a declaration of
/// that name where the kernel is, or the identifier anywhere in the file's
/// tokens (a macro may use it).
std::string whyNameTaken(const RewriteContext &RC, const FunctionDecl *K,
                         StringRef NewName) {
  ASTContext &Ctx = RC.getASTContext();
  if (!K->getDeclContext()
           ->getRedeclContext()
           ->lookup(DeclarationName(&Ctx.Idents.get(NewName)))
           .empty())
    return "the name " + NewName.str() + " is already declared";
  const SourceManager &SM = RC.getSourceManager();
  FileID FID = SM.getMainFileID();
  StringRef Buf = SM.getBufferData(FID);
  Lexer L(SM.getLocForStartOfFile(FID), Ctx.getLangOpts(), Buf.begin(),
          Buf.begin(), Buf.end());
  Token T;
  do {
    L.LexFromRawLexer(T);
    if (T.is(tok::raw_identifier) && T.getRawIdentifier() == NewName)
      return "the name " + NewName.str() + " already appears in the file";
  } while (T.isNot(tok::eof));
  return "";
}

} // namespace

bool keepsOriginal(const RewriteContext &RC, StringRef Kernel,
                   ArrayRef<const FunctionDecl *> Kernels) {
  const SourceManager &SM = RC.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  std::string Copy = (Kernel + SmallEntrySuffix).str();
  for (const FunctionDecl *K : Kernels) {
    if (K->getName() != Copy)
      continue;
    SourceLocation At = SM.getExpansionLoc(definitionRange(K).getBegin());
    if (!SM.isWrittenInMainFile(At))
      continue;
    unsigned Begin = SM.getFileOffset(At);
    StringRef Before = Buf.take_front(Begin).rtrim();
    if (Before.ends_with(keepOriginalMarker(Kernel)))
      return true;
  }
  return false;
}

namespace {

/// \p Buf's text from \p Begin to \p End with the name of \p OldSize
/// bytes at \p NameAt replaced by \p NewName; the lines after it up to
/// \p AlignEnd (the parameter list) that were aligned past the name's column
/// move right with it, so that they stay aligned.
std::string renamedCopy(StringRef Buf, unsigned Begin, unsigned End,
                        unsigned NameAt, size_t OldSize, StringRef NewName,
                        unsigned AlignEnd) {
  size_t LineStart = Buf.rfind('\n', NameAt);
  size_t Column = NameAt - (LineStart == StringRef::npos ? 0 : LineStart + 1);
  std::string Shift(NewName.size() - OldSize, ' ');
  std::string Out = (Buf.slice(Begin, NameAt) + NewName).str();
  for (unsigned I = NameAt + OldSize; I < End; ++I) {
    Out += Buf[I];
    if (Buf[I] != '\n' || I >= AlignEnd)
      continue;
    size_t Spaces = 0;
    while (I + 1 + Spaces < End && Buf[I + 1 + Spaces] == ' ')
      ++Spaces;
    if (Spaces > Column)
      Out += Shift;
  }
  return Out;
}

Expected<std::vector<Rewrite::PlannedSite>>
KeepOriginal::plan(RewriteContext &RC, const RewriteParams &P) const {
  ASTContext &Ctx = RC.getASTContext();
  const SourceManager &SM = RC.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  std::vector<PlannedSite> Sites;
  // Found once: each kernel's checks look at the others.
  std::vector<const FunctionDecl *> Kernels = findKernels(Ctx);
  for (const FunctionDecl *K : Kernels) {
    std::string Name = K->getNameAsString();
    std::string NewName = Name + SmallEntrySuffix.str();
    PlannedSite PS;
    RewriteSite &Site = PS.Site;
    Site.Kernel = Name;
    Site.Loc = RC.getDiagLoc(K->getLocation());
    Site.Selected = isSelected(P, Name, "");
    auto Refuse = [&](const Twine &Why) {
      Site.Detail = Why.str();
      Sites.push_back(std::move(PS));
    };
    SourceRange R = definitionRange(K);
    std::string Macro = getMacroReason(RC, R);
    if (!Macro.empty()) {
      Refuse("the kernel is " + Macro);
      continue;
    }
    StringRef Base = StringRef(Name).drop_back(SmallEntrySuffix.size());
    if (StringRef(Name).ends_with(SmallEntrySuffix) &&
        keepsOriginal(RC, Base, Kernels)) {
      Refuse(Name + " is the copy of " + Base + " that keep-original kept");
      continue;
    }
    if (keepsOriginal(RC, Name, Kernels)) {
      Refuse("the file keeps " + Name + " already (" + NewName + ")");
      continue;
    }
    if (K->getQualifier()) {
      Refuse("the kernel is defined out of line (" +
             RC.getText(SourceRange(K->getQualifierLoc().getBeginLoc(),
                                    K->getLocation())) +
             "): the copy would need a declaration of its own there");
      continue;
    }
    if (count_if(Kernels, [&](const FunctionDecl *O) {
          return O->getName() == Name;
        }) > 1) {
      Refuse("another kernel is named " + Name +
             " too (in another scope): which one an explicit "
             "instantiation names is not known here");
      continue;
    }
    if (any_of(K->redecls(), [&](const FunctionDecl *D) {
          return D != K && D->hasAttr<CUDALaunchBoundsAttr>();
        })) {
      Refuse("an earlier declaration of " + Name +
             " gives its __launch_bounds__, which the copy of the definition "
             "would not have");
      continue;
    }
    std::string Taken = whyNameTaken(RC, K, NewName);
    if (!Taken.empty()) {
      Refuse(Taken + ": the copy of " + Name + " would clash with it");
      continue;
    }
    EditBatch Offsets(RC);
    unsigned Begin = Offsets.beginOf(R), End = Offsets.endOf(R);
    SourceLocation NameLoc = K->getLocation();
    unsigned NameAt = NameLoc.isFileID() ? SM.getFileOffset(NameLoc) : ~0u;
    if (Begin == ~0u || End == ~0u || NameAt < Begin ||
        NameAt + Name.size() > End || Buf.substr(NameAt, Name.size()) != Name) {
      Refuse("the kernel's definition is not written in the file as one "
             "piece with its name");
      continue;
    }
    unsigned BodyAt =
        K->getBody() ? Offsets.beginOf(SourceRange(K->getBody()->getBeginLoc()))
                     : End;
    std::string Copy = renamedCopy(Buf, Begin, End, NameAt, Name.size(),
                                   NewName, std::min(BodyAt, End));
    // A template's instantiations written in the file, each copied after
    // itself for the copy.
    std::vector<std::pair<unsigned, std::string>> Instantiations;
    if (K->getDescribedFunctionTemplate()) {
      std::string Why;
      for (const WrittenInstantiation &W :
           findWrittenInstantiations(RC, Name)) {
        if (W.Extern)
          continue; // declares one made elsewhere: no copy there
        unsigned At = SM.getFileOffset(W.Loc);
        if (At >= 2 && Buf.substr(0, At).rtrim().ends_with("::")) {
          Why = "the explicit instantiation at " + getLineCol(RC, W.Loc) +
                " names " + Name +
                " with a qualifier: which kernel it is "
                "is not checked here";
          break;
        }
        if (W.Begin < End) {
          Why = "an explicit instantiation of " + Name + " at " +
                getLineCol(RC, W.Loc) + " comes before its definition ends";
          break;
        }
        Instantiations.push_back(
            {W.End, "\n" + renamedCopy(Buf, W.Begin, W.End, At, Name.size(),
                                       NewName, W.End)});
      }
      if (Why.empty() && Instantiations.empty())
        Why = Name +
              " is a template that the file does not instantiate "
              "explicitly (template __global__ void " +
              Name +
              "<...>(...);): the copy would have no instantiation to run";
      if (!Why.empty()) {
        Refuse(Why);
        continue;
      }
    }
    Site.Applicable = true;
    Site.Detail =
        "a copy of " + Name + " as it is, " + NewName +
        (Instantiations.empty() ? std::string()
                                : " (" + std::to_string(Instantiations.size()) +
                                      " explicit instantiation(s) copied)") +
        ", for the launches below the plan's min-threads bound "
        "(launch:...,small-entry=1)";
    if (Site.Selected) {
      std::string Text = "\n\n" + keepOriginalMarker(Name) + "\n" + Copy;
      PS.Edit = [End, Text, Instantiations](EditBatch &Edits) {
        Edits.insert(End, Text);
        for (const auto &[At, T] : Instantiations)
          Edits.insert(At, T);
      };
    }
    Sites.push_back(std::move(PS));
  }
  return std::move(Sites);
}

} // namespace

std::unique_ptr<Rewrite> createKeepOriginal() {
  return std::make_unique<KeepOriginal>();
}

} // namespace astra
