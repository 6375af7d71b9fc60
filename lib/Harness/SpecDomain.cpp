//===- SpecDomain.cpp - The domain of a spec's shape variables ------------===//
//
// `"vars"` states, per shape variable, whether generated edge shapes may vary
// it and which values it may take (docs/spec.md, "Shape variables"). This
// file answers whether a shape lies in that domain and, if not, says which
// requirement it breaks in words a report can show.
//
//===----------------------------------------------------------------------===//
#include "SpecInternal.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace astra {

namespace {

/// "H*D (= 12416)", or "32" for a literal.
std::string describe(const SizeExpr &E, int64_t Value) {
  std::string Text = E.text();
  if (Text == std::to_string(Value))
    return Text;
  return Text + " (= " + std::to_string(Value) + ")";
}

bool isPowerOfTwo(int64_t V) { return V > 0 && (V & (V - 1)) == 0; }

class DomainCheck {
public:
  DomainCheck(const VarDomain &D, const Shape &S, int64_t Value,
              std::vector<DomainViolation> &Out)
      : D(D), S(S), Value(Value), Out(Out) {}

  void run() {
    if (D.PowerOfTwo && !isPowerOfTwo(Value))
      broken("power_of_two", D.Name + " must be a power of two");
    bound("multiple_of", D.MultipleOf, [&](int64_t M) -> std::string {
      if (M < 1)
        return "the multiple_of of " + D.Name + " must be at least 1";
      if (Value % M != 0)
        return D.Name + " must be a multiple of " + describe(D.MultipleOf, M);
      return "";
    });
    bound("divides", D.Divides, [&](int64_t X) -> std::string {
      if (Value < 1 || X % Value != 0)
        return D.Name + " must divide " + describe(D.Divides, X);
      return "";
    });
    bound("min", D.Min, [&](int64_t Lo) -> std::string {
      if (Value < Lo)
        return D.Name + " must be at least " + describe(D.Min, Lo);
      return "";
    });
    bound("max", D.Max, [&](int64_t Hi) -> std::string {
      if (Value > Hi)
        return D.Name + " must be at most " + describe(D.Max, Hi);
      return "";
    });
  }

private:
  const VarDomain &D;
  const Shape &S;
  int64_t Value;
  std::vector<DomainViolation> &Out;

  void broken(StringRef Field, const Twine &Requirement) {
    Out.push_back(
        {D.Name, Value, detail::member(D.Path, Field), Requirement.str()});
  }

  /// Evaluates \p E on the shape and asks \p Check for the requirement it
  /// breaks ("" when none).
  template <typename CheckFn>
  void bound(StringRef Field, const SizeExpr &E, CheckFn Check) {
    if (E.empty())
      return;
    Expected<int64_t> V = E.eval(S);
    if (!V) {
      broken(Field, toString(V.takeError()));
      return;
    }
    std::string Why = Check(*V);
    if (!Why.empty())
      broken(Field, Why);
  }
};

} // namespace

const VarDomain *KernelSpec::domainOf(StringRef Name) const {
  for (const VarDomain &D : Vars)
    if (D.Name == Name)
      return &D;
  return nullptr;
}

std::vector<DomainViolation>
KernelSpec::domainViolations(const Shape &S) const {
  std::vector<DomainViolation> Out;
  for (const VarDomain &D : Vars)
    if (std::optional<int64_t> V = S.lookup(D.Name))
      DomainCheck(D, S, *V, Out).run();
  return Out;
}

} // namespace astra
