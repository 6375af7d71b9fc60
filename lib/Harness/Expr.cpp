//===- SizeExpr.cpp - Integer expressions over shape variables ----------------===//
#include "astra/Harness/Expr.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace astra {

void Shape::set(StringRef Name, int64_t Value) {
  for (auto &V : Vars)
    if (V.first == Name) {
      V.second = Value;
      return;
    }
  Vars.emplace_back(Name.str(), Value);
}

std::optional<int64_t> Shape::lookup(StringRef Name) const {
  for (const auto &V : Vars)
    if (V.first == Name)
      return V.second;
  return std::nullopt;
}

std::string Shape::str() const {
  std::string S;
  raw_string_ostream OS(S);
  ListSeparator LS(", ");
  for (const auto &V : Vars)
    OS << LS << V.first << "=" << V.second;
  return S;
}

struct SizeExpr::Node {
  enum Kind { Lit, Var, Neg, Add, Sub, Mul, Div, Rem, Min, Max, CeilDiv } K;
  int64_t Value = 0;
  std::string Name;
  std::shared_ptr<const Node> L, R;
};

namespace {
using NodePtr = std::shared_ptr<const SizeExpr::Node>;

class Parser {
public:
  explicit Parser(StringRef Text) : Text(Text) {}

  NodePtr parseAll() {
    NodePtr N = parseSum();
    if (N && !Failed) {
      skipSpace();
      if (Pos < Text.size())
        return fail("unexpected '" + Text.substr(Pos, 1).str() + "'");
    }
    return Failed ? nullptr : N;
  }

  std::string Msg;
  size_t ErrPos = 0;

private:
  StringRef Text;
  size_t Pos = 0;
  bool Failed = false;

  NodePtr fail(const std::string &M) {
    if (!Failed) {
      Failed = true;
      Msg = M;
      ErrPos = Pos;
    }
    return nullptr;
  }
  void skipSpace() {
    while (Pos < Text.size() && isSpace(Text[Pos]))
      ++Pos;
  }
  bool consume(char C) {
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  static NodePtr make(SizeExpr::Node::Kind K, NodePtr L, NodePtr R = nullptr) {
    auto N = std::make_shared<SizeExpr::Node>();
    N->K = K;
    N->L = std::move(L);
    N->R = std::move(R);
    return N;
  }

  NodePtr parseSum() {
    NodePtr L = parseProduct();
    while (L) {
      if (consume('+'))
        L = make(SizeExpr::Node::Add, L, parseProduct());
      else if (consume('-'))
        L = make(SizeExpr::Node::Sub, L, parseProduct());
      else
        break;
      if (Failed)
        return nullptr;
    }
    return L;
  }

  NodePtr parseProduct() {
    NodePtr L = parseUnary();
    while (L) {
      SizeExpr::Node::Kind K;
      if (consume('*'))
        K = SizeExpr::Node::Mul;
      else if (consume('/'))
        K = SizeExpr::Node::Div;
      else if (consume('%'))
        K = SizeExpr::Node::Rem;
      else
        break;
      L = make(K, L, parseUnary());
      if (Failed)
        return nullptr;
    }
    return L;
  }

  NodePtr parseUnary() {
    if (consume('-')) {
      NodePtr Operand = parseUnary();
      return Operand ? make(SizeExpr::Node::Neg, Operand) : nullptr;
    }
    if (consume('+'))
      return parseUnary();
    return parsePrimary();
  }

  NodePtr parsePrimary() {
    skipSpace();
    if (Pos >= Text.size())
      return fail("expected a number, variable or '('");
    char C = Text[Pos];
    if (C == '(') {
      ++Pos;
      NodePtr N = parseSum();
      if (!N)
        return nullptr;
      if (!consume(')'))
        return fail("expected ')'");
      return N;
    }
    if (isDigit(C)) {
      size_t Start = Pos;
      while (Pos < Text.size() && isAlnum(Text[Pos]))
        ++Pos;
      StringRef Digits = Text.slice(Start, Pos);
      int64_t V;
      if (Digits.getAsInteger(10, V)) {
        Pos = Start;
        if (!all_of(Digits, isDigit))
          return fail("invalid number '" + Digits.str() + "'");
        return fail("number '" + Digits.str() + "' does not fit in 64 bits");
      }
      auto N = std::make_shared<SizeExpr::Node>();
      N->K = SizeExpr::Node::Lit;
      N->Value = V;
      return N;
    }
    if (isAlpha(C) || C == '_') {
      size_t Start = Pos;
      while (Pos < Text.size() && (isAlnum(Text[Pos]) || Text[Pos] == '_'))
        ++Pos;
      StringRef Name = Text.slice(Start, Pos);
      skipSpace();
      if (Pos < Text.size() && Text[Pos] == '(') {
        SizeExpr::Node::Kind K;
        if (Name == "min")
          K = SizeExpr::Node::Min;
        else if (Name == "max")
          K = SizeExpr::Node::Max;
        else if (Name == "ceil_div")
          K = SizeExpr::Node::CeilDiv;
        else {
          Pos = Start;
          return fail("unknown function '" + Name.str() +
                      "' (functions: min, max, ceil_div)");
        }
        ++Pos;
        NodePtr A = parseSum();
        if (!A)
          return nullptr;
        if (!consume(','))
          return fail("expected ',' in " + Name.str() + "(a, b)");
        NodePtr B = parseSum();
        if (!B)
          return nullptr;
        if (!consume(')'))
          return fail("expected ')' after the arguments of " + Name.str());
        return make(K, A, B);
      }
      auto N = std::make_shared<SizeExpr::Node>();
      N->K = SizeExpr::Node::Var;
      N->Name = Name.str();
      return N;
    }
    return fail("unexpected '" + Text.substr(Pos, 1).str() + "'");
  }
};

class Evaluator {
public:
  Evaluator(const Shape &S, StringRef Text) : S(S), Text(Text) {}

  Expected<int64_t> eval(const SizeExpr::Node &N) {
    using K = SizeExpr::Node;
    switch (N.K) {
    case K::Lit:
      return N.Value;
    case K::Var:
      if (std::optional<int64_t> V = S.lookup(N.Name))
        return *V;
      return err("variable '" + N.Name + "' is not bound by the shape {" +
                 S.str() + "}");
    default:
      break;
    }
    Expected<int64_t> L = eval(*N.L);
    if (!L)
      return L.takeError();
    if (N.K == K::Neg) {
      if (*L == INT64_MIN)
        return overflow();
      return -*L;
    }
    Expected<int64_t> R = eval(*N.R);
    if (!R)
      return R.takeError();
    int64_t A = *L, B = *R, Out;
    switch (N.K) {
    case K::Add:
      if (__builtin_add_overflow(A, B, &Out))
        return overflow();
      return Out;
    case K::Sub:
      if (__builtin_sub_overflow(A, B, &Out))
        return overflow();
      return Out;
    case K::Mul:
      if (__builtin_mul_overflow(A, B, &Out))
        return overflow();
      return Out;
    case K::Div:
    case K::Rem:
    case K::CeilDiv: {
      if (B == 0)
        return err(N.K == K::Rem ? "modulo by zero" : "division by zero");
      if (A == INT64_MIN && B == -1) {
        if (N.K == K::Rem)
          return 0;
        return overflow();
      }
      if (N.K == K::Div)
        return A / B;
      if (N.K == K::Rem)
        return A % B;
      // The mathematical ceiling of A/B, for any signs.
      int64_t Q = A / B;
      if (A % B != 0 && ((A < 0) == (B < 0)))
        ++Q;
      return Q;
    }
    case K::Min:
      return std::min(A, B);
    case K::Max:
      return std::max(A, B);
    default:
      llvm_unreachable("handled above");
    }
  }

private:
  const Shape &S;
  StringRef Text;

  Error err(const Twine &Msg) {
    return createStringError("expression '" + Text + "': " + Msg);
  }
  Error overflow() {
    return err("64-bit overflow for shape {" + S.str() + "}");
  }
};

void collectVars(const SizeExpr::Node *N, std::vector<std::string> &Out) {
  if (!N)
    return;
  if (N->K == SizeExpr::Node::Var) {
    if (!is_contained(Out, N->Name))
      Out.push_back(N->Name);
    return;
  }
  collectVars(N->L.get(), Out);
  collectVars(N->R.get(), Out);
}
} // namespace

Expected<SizeExpr> SizeExpr::parse(StringRef Text, size_t *ErrorPos) {
  Parser P(Text);
  NodePtr Root = P.parseAll();
  if (!Root) {
    if (ErrorPos)
      *ErrorPos = P.ErrPos;
    return createStringError("expression '" + Text + "': " + P.Msg +
                             " at position " + Twine(P.ErrPos + 1));
  }
  SizeExpr E;
  E.Root = std::move(Root);
  E.Text = Text.str();
  return E;
}

SizeExpr SizeExpr::constant(int64_t V) {
  auto N = std::make_shared<Node>();
  N->K = Node::Lit;
  N->Value = V;
  SizeExpr E;
  E.Root = std::move(N);
  E.Text = std::to_string(V);
  return E;
}

Expected<int64_t> SizeExpr::eval(const Shape &S) const {
  if (!Root)
    return createStringError("empty expression");
  return Evaluator(S, Text).eval(*Root);
}

std::vector<std::string> SizeExpr::variables() const {
  std::vector<std::string> Out;
  collectVars(Root.get(), Out);
  return Out;
}

} // namespace astra
