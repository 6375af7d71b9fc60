//===- HarnessEvaluator.cpp - Judge candidates on the GPU -----------------===//
#include "astra/Agent/Evaluator.h"
#include "astra/Agent/Plan.h"

using namespace llvm;

namespace astra {

Evaluator::~Evaluator() = default;

namespace {
class HarnessEvaluator : public Evaluator {
public:
  explicit HarnessEvaluator(std::unique_ptr<EvalSession> S)
      : Session(std::move(S)) {}
  unsigned getWorkerCount() const override {
    return Session->getWorkerCount();
  }
  Expected<VerifyResult> evaluate(const Candidate &C, StringRef Ptx,
                                  unsigned Worker) override {
    Expected<LaunchOverrides> L = launchOverridesOf(C.Steps);
    if (!L)
      return L.takeError();
    return Session->evaluate(Ptx, C.describe(), Worker, *L);
  }
  Expected<VerifyResult> verifyFully(const Candidate &C,
                                     StringRef Ptx) override {
    Expected<LaunchOverrides> L = launchOverridesOf(C.Steps);
    if (!L)
      return L.takeError();
    return Session->verifyFully(Ptx, C.describe(), *L);
  }

private:
  std::unique_ptr<EvalSession> Session;
};
} // namespace

std::unique_ptr<Evaluator>
createHarnessEvaluator(std::unique_ptr<EvalSession> Session) {
  return std::make_unique<HarnessEvaluator>(std::move(Session));
}

} // namespace astra
