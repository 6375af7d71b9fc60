//===- HarnessEvaluator.cpp - Judge candidates on the GPU -----------------===//
#include "astra/Agent/Evaluator.h"

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
    return Session->evaluate(Ptx, C.describe(), Worker);
  }
  Expected<VerifyResult> verifyFully(const Candidate &C,
                                     StringRef Ptx) override {
    return Session->verifyFully(Ptx, C.describe());
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
