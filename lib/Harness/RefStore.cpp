//===- RefStore.cpp - The original's test cases on disk -------------------===//
#include "RefStore.h"
#include "astra/Support/Error.h"
#include "astra/Support/Output.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <atomic>
#include <cstring>

using namespace llvm;

namespace astra {

static std::string bufferPath(StringRef Dir, StringRef Prefix, StringRef Kind,
                              size_t Arg) {
  SmallString<128> P(Dir);
  sys::path::append(P, (Prefix + "." + Kind + Twine(Arg) + ".bin").str());
  return P.str().str();
}

static Error writeRaw(const std::string &Path, const std::vector<uint8_t> &B) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (EC)
    return makeInternalError("cannot write " + Path + ": " + EC.message());
  OS.write(reinterpret_cast<const char *>(B.data()), B.size());
  OS.close();
  if (OS.has_error())
    return makeInternalError("cannot write " + Path);
  return Error::success();
}

static Error readRaw(const std::string &Path, std::vector<uint8_t> &B) {
  Expected<sys::fs::file_t> FD = sys::fs::openNativeFileForRead(Path);
  if (!FD)
    return makeInternalError("cannot read " + Path + ": " +
                             toString(FD.takeError()));
  llvm::scope_exit Close([&] { sys::fs::closeFile(*FD); });
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(*FD, St))
    return makeInternalError("cannot read " + Path + ": " + EC.message());
  // Reference buffers reach a gigabyte: read() in parallel chunks straight
  // into the buffer (from the page cache, without the page faults of a
  // mapping).
  B.resize(St.getSize());
  const size_t Chunk = size_t(16) << 20;
  std::atomic<bool> Short{false};
  parallelFor(0, (B.size() + Chunk - 1) / Chunk, [&](size_t C) {
    size_t Begin = C * Chunk, End = std::min(Begin + Chunk, B.size());
    while (Begin < End) {
      Expected<size_t> N = sys::fs::readNativeFileSlice(
          *FD,
          MutableArrayRef<char>(reinterpret_cast<char *>(B.data()) + Begin,
                                End - Begin),
          Begin);
      if (!N || *N == 0) {
        if (!N)
          consumeError(N.takeError());
        Short = true;
        return;
      }
      Begin += *N;
    }
  });
  if (Short)
    return makeInternalError("cannot read " + Path + ": short read");
  return Error::success();
}

Error writeRefCase(StringRef Dir, StringRef Prefix, const ArgBuffers &In,
                   const ArgBuffers (&Out)[2]) {
  for (size_t I = 0; I < In.size(); ++I)
    if (!In[I].empty())
      if (Error E = writeRaw(bufferPath(Dir, Prefix, "in", I), In[I]))
        return E;
  for (unsigned Run = 0; Run < 2; ++Run)
    for (size_t I = 0; I < Out[Run].size(); ++I) {
      if (Out[Run][I].empty())
        continue;
      // A deterministic original's second run is its first: not stored.
      if (Run == 1 && I < Out[0].size() && Out[1][I] == Out[0][I])
        continue;
      if (Error E = writeRaw(
              bufferPath(Dir, Prefix, Run ? "out1_" : "out0_", I), Out[Run][I]))
        return E;
    }
  return Error::success();
}

Error readRefCase(StringRef Dir, StringRef Prefix, size_t NumArgs,
                  ArgBuffers &In, ArgBuffers (&Out)[2]) {
  auto ReadAll = [&](StringRef Kind, ArgBuffers &Bufs) -> Error {
    Bufs.assign(NumArgs, {});
    for (size_t I = 0; I < NumArgs; ++I) {
      std::string P = bufferPath(Dir, Prefix, Kind, I);
      if (!sys::fs::exists(P))
        continue;
      if (Error E = readRaw(P, Bufs[I]))
        return E;
    }
    return Error::success();
  };
  if (Error E = ReadAll("in", In))
    return E;
  if (Error E = ReadAll("out0_", Out[0]))
    return E;
  return ReadAll("out1_", Out[1]);
}

RefPrefetcher::RefPrefetcher(std::string Dir, std::vector<std::string> Prefixes,
                             size_t NumArgs)
    : Dir(std::move(Dir)), Prefixes(std::move(Prefixes)), NumArgs(NumArgs) {
  Reader = std::thread([this] { readAhead(); });
}

RefPrefetcher::~RefPrefetcher() {
  {
    std::lock_guard<std::mutex> L(M);
    Stop = true;
  }
  CV.notify_all();
  Reader.join();
}

void RefPrefetcher::readAhead() {
  size_t I = 0;
  while (true) {
    {
      // Wait until the worker has taken the case before I (or skipped
      // ahead), then read the one it takes next.
      std::unique_lock<std::mutex> L(M);
      CV.wait(L, [&] { return Stop || (!Full && Next >= I); });
      if (Stop || Next >= Prefixes.size())
        return;
      I = Next;
    }
    Slot S;
    if (Error E = readRefCase(Dir, Prefixes[I], NumArgs, S.In, S.Out))
      S.Error = toString(std::move(E));
    {
      std::lock_guard<std::mutex> L(M);
      if (Stop)
        return;
      // Kept only if the worker still wants it.
      if (Next == I) {
        Ready = std::move(S);
        Full = true;
      }
    }
    CV.notify_all();
    ++I;
  }
}

Error RefPrefetcher::take(StringRef Prefix, ArgBuffers &In,
                          ArgBuffers (&Out)[2]) {
  std::unique_lock<std::mutex> L(M);
  auto It = std::find(Prefixes.begin() + std::min(Next, Prefixes.size()),
                      Prefixes.end(), Prefix);
  if (It == Prefixes.end()) {
    // Out of order (asked for again, or not listed): read it now.
    L.unlock();
    return readRefCase(Dir, Prefix, NumArgs, In, Out);
  }
  size_t J = It - Prefixes.begin();
  if (J != Next) {
    // Cases skipped: what was read ahead is not needed.
    Next = J;
    Full = false;
    Ready = Slot();
    CV.notify_all();
  }
  CV.wait(L, [&] { return Full; });
  Slot S = std::move(Ready);
  Full = false;
  ++Next;
  L.unlock();
  CV.notify_all();
  if (!S.Error.empty())
    return makeInternalError(S.Error);
  In = std::move(S.In);
  Out[0] = std::move(S.Out[0]);
  Out[1] = std::move(S.Out[1]);
  return Error::success();
}

static std::string indexPath(StringRef Dir) {
  SmallString<128> P(Dir);
  sys::path::append(P, "index.json");
  return P.str().str();
}

Error writeRefIndex(StringRef Dir, const RefIndex &Index) {
  json::Array Shapes;
  for (const RefShape &S : Index.Shapes) {
    json::Array Cases;
    for (const RefCase &C : S.Cases)
      Cases.push_back(json::Object{
          {"prefix", C.Prefix},
          {"seed", int64_t(C.G.Seed)},
          {"dist", C.G.Distribution ? distName(*C.G.Distribution).str() : ""},
          {"specials", C.G.Specials}});
    Shapes.push_back(
        json::Object{{"dropped", S.Dropped}, {"cases", std::move(Cases)}});
  }
  std::string Text;
  raw_string_ostream(Text) << json::Value(
      json::Object{{"shapes", std::move(Shapes)}});
  return writeFileAtomically(indexPath(Dir), Text);
}

Expected<RefIndex> readRefIndex(StringRef Dir) {
  std::string Path = indexPath(Dir);
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return makeInternalError("cannot read " + Path);
  Expected<json::Value> V = json::parse((*B)->getBuffer());
  if (!V)
    return V.takeError();
  RefIndex Index;
  auto Bad = [&] { return makeInternalError("malformed " + Path); };
  const json::Object *Root = V->getAsObject();
  const json::Array *Shapes = Root ? Root->getArray("shapes") : nullptr;
  if (!Shapes)
    return Bad();
  for (const json::Value &SV : *Shapes) {
    const json::Object *SO = SV.getAsObject();
    const json::Array *Cases = SO ? SO->getArray("cases") : nullptr;
    std::optional<StringRef> Dropped =
        SO ? SO->getString("dropped") : std::nullopt;
    if (!Cases || !Dropped)
      return Bad();
    RefShape S;
    S.Dropped = Dropped->str();
    for (const json::Value &CV : *Cases) {
      const json::Object *CO = CV.getAsObject();
      if (!CO)
        return Bad();
      std::optional<StringRef> Prefix = CO->getString("prefix"),
                               Dist = CO->getString("dist");
      std::optional<int64_t> Seed = CO->getInteger("seed");
      std::optional<bool> Specials = CO->getBoolean("specials");
      if (!Prefix || !Dist || !Seed || !Specials)
        return Bad();
      RefCase C;
      C.Prefix = Prefix->str();
      C.G.Seed = uint64_t(*Seed);
      C.G.Specials = *Specials;
      if (!Dist->empty()) {
        C.G.Distribution = parseDist(*Dist);
        if (!C.G.Distribution)
          return Bad();
      }
      S.Cases.push_back(std::move(C));
    }
    Index.Shapes.push_back(std::move(S));
  }
  return Index;
}

} // namespace astra
