//===- LoopFormTest.cpp - Loop headers on small ASTs ----------------------===//
#include "astra/Frontend/LoopForm.h"
#include "CudaSnippet.h"
#include "astra/Frontend/VarUses.h"

using namespace astra;
using namespace clang;

namespace {

class LoopFormTest : public test::CudaSnippetTest {
protected:
  /// The form of the \p N-th loop of \p Fn, with the writes of its body.
  LoopForm form(llvm::StringRef Fn, unsigned N = 0) {
    test::FunctionParts P = parts(Fn);
    EXPECT_LT(N, P.Loops.size()) << Fn.str();
    if (!P.Decl || N >= P.Loops.size())
      return LoopForm();
    Writes = std::make_unique<VarUses>(P.Decl->getBody());
    return analyzeLoopForm(ctx(), P.Loops[N], Writes.get());
  }
  std::unique_ptr<VarUses> Writes;
};

TEST_F(LoopFormTest, PartitionsInEveryDimension) {
  parse("void rows(float *p, int n) {\n"
        "  for (int i = threadIdx.y; i < n; i += blockDim.y) p[i] = 0;\n"
        "}\n"
        "void grid(float *p, int n) {\n"
        "  for (int i = blockIdx.z * blockDim.z + threadIdx.z; i < n;\n"
        "       i += blockDim.z * gridDim.z) p[i] = 0;\n"
        "}\n"
        "void mixed(float *p, int n) {\n"
        "  for (int i = threadIdx.x; i < n; i += blockDim.y * gridDim.x)\n"
        "    p[i] = 0;\n"
        "}\n"
        "void seq(float *p, int n) {\n"
        "  for (int i = 0; i < n; ++i) p[i] = 0;\n"
        "}\n");
  LoopForm Rows = form("rows");
  ASSERT_NE(Rows.IV, nullptr);
  EXPECT_EQ(Rows.IV->getName(), "i");
  EXPECT_TRUE(Rows.DeclaresIV);
  EXPECT_EQ(Rows.Class, LoopClass::BlockStride);
  EXPECT_EQ(Rows.Partition, LoopPartition::Block);
  EXPECT_EQ(Rows.Dim, 'y');
  EXPECT_EQ(Rows.Cmp, BO_LT);
  EXPECT_EQ(Rows.Update, LoopUpdate::AddAssign);
  EXPECT_TRUE(Rows.stepsUp());

  LoopForm Grid = form("grid");
  EXPECT_EQ(Grid.Class, LoopClass::GridStride);
  EXPECT_EQ(Grid.Partition, LoopPartition::Grid);
  EXPECT_EQ(Grid.Dim, 'z');

  // Factors of two dimensions: neither a grid stride nor a partition.
  LoopForm Mixed = form("mixed");
  EXPECT_EQ(Mixed.Class, LoopClass::Plain);
  EXPECT_EQ(Mixed.Partition, LoopPartition::None);
  EXPECT_EQ(Mixed.Dim, 0);

  LoopForm Seq = form("seq");
  EXPECT_EQ(Seq.Partition, LoopPartition::Sequential);
  EXPECT_EQ(Seq.Update, LoopUpdate::Increment);
  EXPECT_EQ(Seq.Step, nullptr);
  EXPECT_EQ(Seq.ConstStep, 1);
}

TEST_F(LoopFormTest, LocalsStandForTheirValuesOnlyWhenUnchanged) {
  parse("void fixed(float *p, int n) {\n"
        "  int t = threadIdx.x; int s = blockDim.x;\n"
        "  for (int i = t; i < n; i += s) p[i] = 0;\n"
        "}\n"
        "void changed(float *p, int n) {\n"
        "  int s = blockDim.x;\n"
        "  if (n > 4) s = 2;\n"
        "  for (int i = threadIdx.x; i < n; i += s) p[i] = 0;\n"
        "}\n"
        "void escaped(float *p, int n) {\n"
        "  int s = blockDim.x * gridDim.x;\n"
        "  int *q = &s;\n"
        "  for (int i = 0; i < n; i += s) p[i] = 0;\n"
        "}\n");
  LoopForm Fixed = form("fixed");
  EXPECT_EQ(Fixed.Partition, LoopPartition::Block);
  EXPECT_EQ(Fixed.Dim, 'x');
  EXPECT_EQ(form("changed").Class, LoopClass::Plain);
  EXPECT_EQ(form("changed").Partition, LoopPartition::None);
  EXPECT_EQ(form("escaped").Class, LoopClass::Plain);
  // Without the writes, no local is followed.
  test::FunctionParts P = parts("fixed");
  ASSERT_EQ(P.Loops.size(), 1u);
  EXPECT_EQ(analyzeLoopForm(ctx(), P.Loops[0], nullptr).Partition,
            LoopPartition::None);
}

TEST_F(LoopFormTest, ConditionsAndUpdates) {
  parse("void flipped(int n) { for (int i = 0; n > i; i = i + 2) {} }\n"
        "void down(int n) { for (int i = n; i >= 0; i -= 3) {} }\n"
        "void halve() { for (int s = 64; s > 0; s >>= 1) {} }\n"
        "void assigned(int i, int n) { for (i = 1; i < 100; i = i * 3) {} }\n"
        "void cast(int n) { for (int i = 0; (long)i < n; ++i) {} }\n"
        "void twoDecls(int n) { for (int i = 0, j = 0; j < n; ++j) {} }\n");
  LoopForm Flipped = form("flipped");
  EXPECT_EQ(Flipped.Cmp, BO_LT);
  EXPECT_TRUE(Flipped.BoundOnLeft);
  EXPECT_EQ(Flipped.Update, LoopUpdate::Assign);
  EXPECT_EQ(Flipped.ConstStep, 2);
  EXPECT_TRUE(Flipped.stepsUp());

  LoopForm Down = form("down");
  EXPECT_EQ(Down.Cmp, BO_GE);
  EXPECT_EQ(Down.Update, LoopUpdate::AddAssign);
  EXPECT_TRUE(Down.StepNegated);
  EXPECT_EQ(Down.ConstStep, -3);
  EXPECT_FALSE(Down.stepsUp());
  EXPECT_EQ(Down.Partition, LoopPartition::None);

  LoopForm Halve = form("halve");
  EXPECT_EQ(Halve.Update, LoopUpdate::Geometric);
  EXPECT_EQ(Halve.GeometricOp, BO_Shr);
  EXPECT_EQ(Halve.TripCount, 7);
  EXPECT_EQ(Halve.Class, LoopClass::Plain);

  LoopForm Assigned = form("assigned");
  EXPECT_FALSE(Assigned.DeclaresIV);
  ASSERT_NE(Assigned.IV, nullptr);
  EXPECT_EQ(Assigned.IV->getName(), "i");
  EXPECT_EQ(Assigned.GeometricOp, BO_Mul);
  EXPECT_EQ(Assigned.TripCount, 5); // 1, 3, 9, 27, 81

  LoopForm Cast = form("cast");
  EXPECT_EQ(Cast.Cmp, BO_LT);
  EXPECT_FALSE(Cast.BareIV);
  EXPECT_TRUE(Cast.BuiltinOps);

  // Two declarations: the condition's variable is the induction variable.
  LoopForm Other = form("twoDecls");
  EXPECT_FALSE(Other.DeclaresIV);
  ASSERT_NE(Other.IV, nullptr);
  EXPECT_EQ(Other.IV->getName(), "j");
  EXPECT_EQ(Other.Init, nullptr);
}

TEST_F(LoopFormTest, WhileLoopsAndConstantTrips) {
  parse("void w(float *p) {\n"
        "  int i = 0;\n"
        "  while (i < 10) { p[i] = 0; i += 4; }\n"
        "  do { --i; } while (i > 0);\n"
        "  for (int k = 2; k <= 11; k += 3) {}\n"
        "}\n");
  LoopForm While = form("w", 0);
  ASSERT_NE(While.IV, nullptr);
  EXPECT_EQ(While.IV->getName(), "i");
  EXPECT_EQ(While.Init, nullptr);
  EXPECT_EQ(While.Update, LoopUpdate::AddAssign);
  EXPECT_EQ(While.TripCount, std::nullopt); // no start in the header
  LoopForm Do = form("w", 1);
  EXPECT_EQ(Do.Update, LoopUpdate::Increment);
  EXPECT_TRUE(Do.StepNegated);
  EXPECT_EQ(form("w", 2).TripCount, 4); // 2, 5, 8, 11
}

TEST_F(LoopFormTest, TemplateOperators) {
  parse("template <typename T> void t(T n) {\n"
        "  for (int i = threadIdx.x; i < n; i += blockDim.x) {}\n"
        "}\n");
  LoopForm T = form("t");
  EXPECT_EQ(T.Cmp, BO_LT);
  EXPECT_EQ(T.Partition, LoopPartition::Block);
}

} // namespace
