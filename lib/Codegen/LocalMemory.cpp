//===- LocalMemory.cpp - Did a rewrite add local memory? ------------------===//
#include "astra/Codegen/LocalMemory.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace astra {

/// The text of `.entry` \p Entry from its opening brace to the matching
/// closing one; empty when \p Ptx has no such entry.
static StringRef entryBody(StringRef Ptx, StringRef Entry) {
  size_t From = 0;
  while (true) {
    size_t P = Ptx.find(".entry " + Entry.str(), From);
    if (P == StringRef::npos)
      return "";
    From = P + 7 + Entry.size();
    char Next = From < Ptx.size() ? Ptx[From] : ' ';
    if (Next == '(' || isSpace(Next))
      break; // not a longer name that starts with Entry
  }
  size_t Open = Ptx.find('{', From);
  if (Open == StringRef::npos)
    return "";
  int Depth = 0;
  for (size_t I = Open; I < Ptx.size(); ++I) {
    if (Ptx[I] == '{')
      ++Depth;
    else if (Ptx[I] == '}' && --Depth == 0)
      return Ptx.slice(Open, I + 1);
  }
  return Ptx.drop_front(Open);
}

PtxLocalUse scanPtxLocalUse(StringRef Ptx, StringRef Entry) {
  SmallVector<StringRef, 0> Lines;
  entryBody(Ptx, Entry).split(Lines, '\n');
  PtxLocalUse U;
  for (StringRef L : Lines) {
    L = L.split("//").first.trim();
    if (L.contains("ld.local.") || L.contains("st.local."))
      ++U.Accesses;
    // .local .align 16 .b8 __local_depot0[32];
    if (L.starts_with(".local ") && L.contains("__local_depot")) {
      unsigned Bytes = 0;
      if (!L.split('[').second.split(']').first.getAsInteger(10, Bytes))
        U.DepotBytes += Bytes;
    }
  }
  return U;
}

LocalMemoryUse getLocalMemoryUse(StringRef Ptx, StringRef Entry,
                                 const KernelResources *Ptxas) {
  LocalMemoryUse U;
  U.Ptx = scanPtxLocalUse(Ptx, Entry);
  if (Ptxas) {
    U.Measured = true;
    U.StackBytes = Ptxas->StackFrameBytes;
    U.SpillStoreBytes = Ptxas->SpillStoreBytes;
    U.SpillLoadBytes = Ptxas->SpillLoadBytes;
  }
  return U;
}

std::string describeLocalMemoryGrowth(const LocalMemoryUse &Before,
                                      const LocalMemoryUse &After) {
  SmallVector<std::string, 4> Grew;
  auto Check = [&](const char *What, unsigned B, unsigned A) {
    if (A > B)
      Grew.push_back((Twine(What) + " " + Twine(B) + " -> " + Twine(A)).str());
  };
  // ptxas has the last word: it may promote a small local array of the PTX
  // back to registers.
  if (Before.Measured && After.Measured) {
    Check("stack frame bytes", Before.StackBytes, After.StackBytes);
    Check("spill-store bytes", Before.SpillStoreBytes, After.SpillStoreBytes);
    Check("spill-load bytes", Before.SpillLoadBytes, After.SpillLoadBytes);
  } else {
    Check("PTX local depot bytes", Before.Ptx.DepotBytes, After.Ptx.DepotBytes);
    Check("PTX ld/st.local", Before.Ptx.Accesses, After.Ptx.Accesses);
  }
  return join(Grew, ", ");
}

} // namespace astra
