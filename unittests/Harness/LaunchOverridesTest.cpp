//===- LaunchOverridesTest.cpp - A candidate's own launch -----------------===//
#include "astra/Harness/Spec.h"
#include "astra/Support/ErrorText.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace llvm;
using ::testing::HasSubstr;

namespace {

std::string messages(Error E) { return errorText(std::move(E)); }

// gelu_and_mul's launch with a tunable block size, and a variable that
// sizes a buffer (not tunable, so the spec is accepted; the overrides are
// checked at resolution).
const char *GeluSpec = R"json({
  "kernel": "gelu_and_mul",
  "args": [
    {"name": "out",   "dtype": "bf16", "count": "T*d",   "role": "out"},
    {"name": "input", "dtype": "bf16", "count": "T*2*d", "role": "in"},
    {"name": "d",     "dtype": "i32",  "value": "d"}
  ],
  "grid":  ["ceil_div(d, B)", "T"],
  "block": ["B"],
  "shared_bytes": "4*B",
  "shapes": [{"T": 4, "d": 11008, "B": 256}],
  "vars": {"B": {"vary": false, "power_of_two": true}},
  "tunable": {"B": [128, 256, 512, 1024]}
})json";

TEST(LaunchOverridesTest, ParsesAndPrints) {
  Expected<LaunchOverrides> O = LaunchOverrides::parse("B=512,grid-x-div=8");
  ASSERT_TRUE(bool(O)) << messages(O.takeError());
  ASSERT_EQ(O->Vars.size(), 1u);
  EXPECT_EQ(O->Vars[0].first, "B");
  EXPECT_EQ(O->Vars[0].second, 512);
  EXPECT_EQ(O->GridXDiv, 8);
  EXPECT_EQ(O->BlockXDiv, 1);
  EXPECT_EQ(O->str(), "B=512,grid-x-div=8");
  Expected<LaunchOverrides> Empty = LaunchOverrides::parse("");
  ASSERT_TRUE(bool(Empty));
  EXPECT_TRUE(Empty->empty());
  EXPECT_EQ(Empty->str(), "");

  EXPECT_NE(messages(LaunchOverrides::parse("B=0").takeError())
                .find("must be a positive integer"),
            std::string::npos);
  EXPECT_NE(messages(LaunchOverrides::parse("B").takeError())
                .find("expected name=<integer>"),
            std::string::npos);
  EXPECT_NE(messages(LaunchOverrides::parse("grid-z-div=2").takeError())
                .find("expected a tunable variable"),
            std::string::npos);
  Expected<LaunchOverrides> Y = LaunchOverrides::parse("grid-y-div=4");
  ASSERT_TRUE(bool(Y)) << messages(Y.takeError());
  EXPECT_EQ(Y->GridYDiv, 4);
  EXPECT_EQ(Y->str(), "grid-y-div=4");
}

TEST(LaunchOverridesTest, ParsesTunable) {
  Expected<LaunchSpecFile> F = parseSpec(GeluSpec, "g.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  ASSERT_EQ(K.Tunable.size(), 1u);
  EXPECT_EQ(K.Tunable[0].Name, "B");
  EXPECT_EQ(K.Tunable[0].Values, (std::vector<int64_t>{128, 256, 512, 1024}));
  EXPECT_NE(K.tunableVar("B"), nullptr);
  EXPECT_EQ(K.tunableVar("T"), nullptr);
}

TEST(LaunchOverridesTest, ResolvesTheCandidatesOwnLaunch) {
  Expected<LaunchSpecFile> F = parseSpec(GeluSpec, "g.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  const Shape &S = K.Shapes[0];
  Expected<ResolvedLaunch> L = resolve(K, S);
  ASSERT_TRUE(bool(L)) << messages(L.takeError());
  // Without overrides the candidate runs the original's launch.
  EXPECT_TRUE(L->Cand == L->dims());

  // B=512: the grid follows the spec's expression, the block and the
  // shared memory too; the buffers stay.
  Expected<LaunchOverrides> O = LaunchOverrides::parse("B=512");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Grid[0], 43u); // ceil(11008 / 256), the original's
  EXPECT_EQ(L->Block[0], 256u);
  EXPECT_EQ(L->Cand.Grid[0], 22u); // ceil(11008 / 512)
  EXPECT_EQ(L->Cand.Grid[1], 4u);
  EXPECT_EQ(L->Cand.Block[0], 512u);
  EXPECT_EQ(L->Cand.SharedBytes, 2048u);
  EXPECT_EQ(L->SharedBytes, 1024u);

  // A grid divided by the pack width, rounded up; y untouched.
  O = LaunchOverrides::parse("grid-x-div=8");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[0], 6u); // ceil(43 / 8)
  EXPECT_EQ(L->Cand.Grid[1], 4u);
  EXPECT_EQ(L->Cand.Block[0], 256u);

  O = LaunchOverrides::parse("B=128,block-x-div=2");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[0], 86u);
  EXPECT_EQ(L->Cand.Block[0], 64u);
}

TEST(LaunchOverridesTest, DividesOnlyFromMinThreadsOn) {
  Expected<LaunchSpecFile> F = parseSpec(GeluSpec, "g.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  const Shape &S = K.Shapes[0]; // 43 x 4 blocks of 256: 44032 threads
  Expected<LaunchOverrides> O =
      LaunchOverrides::parse("grid-x-div=8,min-threads=44032");
  ASSERT_TRUE(bool(O)) << messages(O.takeError());
  EXPECT_EQ(O->MinThreads, 44032);
  EXPECT_EQ(O->str(), "grid-x-div=8,min-threads=44032");
  Expected<ResolvedLaunch> L = resolve(K, S);
  ASSERT_TRUE(bool(L));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[0], 6u); // at the bound: divided

  O = LaunchOverrides::parse("grid-x-div=8,min-threads=44033");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_TRUE(L->Cand == L->dims()); // below it: the original's launch

  // The bound counts the caller's launch (the spec's, B=256) and holds for
  // the variables too: at it B=512 halves the grid and the block is
  // divided; below it the launch is the spec's, B as it was.
  O = LaunchOverrides::parse("B=512,block-x-div=2,min-threads=44032");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[0], 22u);
  EXPECT_EQ(L->Cand.Block[0], 256u);
  O = LaunchOverrides::parse("B=512,min-threads=44033");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_TRUE(L->Cand == L->dims());
  O = LaunchOverrides::parse("B=512,min-threads=44032");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Block[0], 512u);
  // A variable that is not tunable is an error at any size.
  O = LaunchOverrides::parse("Q=512,min-threads=1000000000");
  ASSERT_TRUE(bool(O));
  EXPECT_NE(messages(resolveCandidateLaunch(K, S, *O, *L))
                .find("not a tunable variable"),
            std::string::npos);
}

TEST(LaunchOverridesTest, FoldsBlocksIntoRows) {
  Expected<LaunchSpecFile> F = parseSpec(GeluSpec, "g.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  const Shape &S = K.Shapes[0]; // grid (43, 4), block 256
  Expected<LaunchOverrides> O = LaunchOverrides::parse("block-x-div=8,fold-y=3");
  ASSERT_TRUE(bool(O)) << messages(O.takeError());
  EXPECT_EQ(O->FoldY, 3);
  EXPECT_EQ(O->str(), "block-x-div=8,fold-y=3");
  Expected<ResolvedLaunch> L = resolve(K, S);
  ASSERT_TRUE(bool(L));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[0], 43u);
  EXPECT_EQ(L->Cand.Grid[1], 2u); // 4 / 3, rounded up
  EXPECT_EQ(L->Cand.Block[0], 32u);
  EXPECT_EQ(L->Cand.Block[1], 3u);

  O = LaunchOverrides::parse("fold-x=4");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[0], 11u);
  EXPECT_EQ(L->Cand.Block[1], 4u);

  O = LaunchOverrides::parse("grid-y-div=3");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[0], 43u);
  EXPECT_EQ(L->Cand.Grid[1], 2u);
  EXPECT_EQ(L->Cand.Block[1], 1u);

  // 256 threads x 8 rows: past the 1024-thread limit.
  O = LaunchOverrides::parse("fold-x=8");
  ASSERT_TRUE(bool(O));
  EXPECT_THAT(messages(resolveCandidateLaunch(K, S, *O, *L)),
              HasSubstr("has 2048 threads, more than 1024"));
  EXPECT_THAT(messages(LaunchOverrides::parse("fold-y=2048").takeError()),
              HasSubstr("at most 1024 rows per block"));
  // A fold and a division of the same extent, or two folds: refused.
  for (const char *Both : {"fold-y=2,grid-y-div=2", "fold-x=2,grid-x-div=2",
                           "fold-x=2,fold-y=2"}) {
    O = LaunchOverrides::parse(Both);
    ASSERT_TRUE(bool(O));
    EXPECT_THAT(messages(resolveCandidateLaunch(K, S, *O, *L)),
                HasSubstr("cannot go together"))
        << Both;
  }
}

TEST(LaunchOverridesTest, FoldsAndDividesExactlyOrNotAtAll) {
  Expected<LaunchSpecFile> F = parseSpec(GeluSpec, "g.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  const Shape &S = K.Shapes[0]; // grid (43, 4), block 256
  Expected<ResolvedLaunch> L = resolve(K, S);
  ASSERT_TRUE(bool(L));
  // 2 divides grid.y = 4: folded.
  Expected<LaunchOverrides> O = LaunchOverrides::parse("fold-y=2,fold-exact=1");
  ASSERT_TRUE(bool(O)) << messages(O.takeError());
  EXPECT_TRUE(O->FoldExact);
  EXPECT_EQ(O->str(), "fold-y=2,fold-exact=1");
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[1], 2u);
  EXPECT_EQ(L->Cand.Block[1], 2u);
  // 3 does not: that extent stays unfolded (without fold-exact: 2 x 3 rows).
  O = LaunchOverrides::parse("fold-y=3,fold-exact=1");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[1], 4u);
  EXPECT_EQ(L->Cand.Block[1], 1u);
  O = LaunchOverrides::parse("fold-x=2,fold-exact=1"); // 43 blocks along x
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[0], 43u);
  EXPECT_EQ(L->Cand.Block[1], 1u);
  EXPECT_THAT(messages(LaunchOverrides::parse("fold-exact=2").takeError()),
              HasSubstr("'fold-exact=2': 0 or 1"));
  O = LaunchOverrides::parse("fold-exact=0");
  ASSERT_TRUE(bool(O));
  EXPECT_TRUE(O->empty());
  // block-exact: 256 / 8 divides, 256 / 3 does not (the block stays whole).
  O = LaunchOverrides::parse("block-x-div=8,block-exact=1");
  ASSERT_TRUE(bool(O));
  EXPECT_EQ(O->str(), "block-x-div=8,block-exact=1");
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Block[0], 32u);
  O = LaunchOverrides::parse("block-x-div=3,block-exact=1");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Block[0], 256u);
  O = LaunchOverrides::parse("block-x-div=3");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Block[0], 86u); // rounded up
}

TEST(LaunchOverridesTest, RefusesWhatIsNotTheLaunch) {
  Expected<LaunchSpecFile> F = parseSpec(GeluSpec, "g.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  Expected<ResolvedLaunch> L = resolve(K, K.Shapes[0]);
  ASSERT_TRUE(bool(L));
  // Not tunable: T sizes the buffers.
  Expected<LaunchOverrides> O = LaunchOverrides::parse("T=8");
  ASSERT_TRUE(bool(O));
  std::string M = messages(resolveCandidateLaunch(K, K.Shapes[0], *O, *L));
  EXPECT_NE(M.find("sets 'T', which is not a tunable variable of the spec "
                   "(tunable: B)"),
            std::string::npos)
      << M;
  // Beyond the launch limits.
  O = LaunchOverrides::parse("B=2048");
  ASSERT_TRUE(bool(O));
  M = messages(resolveCandidateLaunch(K, K.Shapes[0], *O, *L));
  EXPECT_NE(M.find("the candidate's launch (B=2048) on shape {T=4, d=11008, "
                   "B=256}"),
            std::string::npos)
      << M;
  EXPECT_NE(M.find("the limit is 1024"), std::string::npos) << M;
}

TEST(LaunchOverridesTest, BuffersMustStayTheSame) {
  // A spec whose tunable variable sizes a buffer is refused when parsed;
  // resolution refuses the same with a hand-made KernelSpec.
  std::string Bad = GeluSpec;
  Bad.replace(Bad.find("\"T*d\""), 5, "\"T*d+B-B+B\"");
  Expected<LaunchSpecFile> F = parseSpec(Bad, "g.json");
  ASSERT_FALSE(bool(F));
  std::string M = messages(F.takeError());
  EXPECT_NE(M.find("tunable.B: 'B' sizes more than the launch: "
                   "args[0].count 'T*d+B-B+B' uses it"),
            std::string::npos)
      << M;

  Expected<LaunchSpecFile> G = parseSpec(GeluSpec, "g.json");
  ASSERT_TRUE(bool(G));
  KernelSpec K = G->Kernels[0];
  K.Args[0].Count = cantFail(SizeExpr::parse("T*d+B"));
  Expected<ResolvedLaunch> L = resolve(K, K.Shapes[0]);
  ASSERT_TRUE(bool(L));
  Expected<LaunchOverrides> O = LaunchOverrides::parse("B=512");
  ASSERT_TRUE(bool(O));
  M = messages(resolveCandidateLaunch(K, K.Shapes[0], *O, *L));
  EXPECT_NE(M.find("changes argument 'out' on shape {T=4, d=11008, B=256} "
                   "(count 44288 -> 44544): a tunable variable may size only "
                   "the launch"),
            std::string::npos)
      << M;
}

// A kernel template whose second template argument is its block size.
const char *TemplateSpec = R"json({
  "kernel": "row_sum<float, 128>",
  "args": [
    {"name": "out",  "dtype": "f32", "count": "R",   "role": "out"},
    {"name": "in",   "dtype": "f32", "count": "R*C", "role": "in"},
    {"name": "cols", "dtype": "i32", "value": "C"}
  ],
  "grid":  ["R"],
  "block": ["B"],
  "shapes": [{"R": 64, "C": 1000, "B": 128}, {"R": 8192, "C": 4096, "B": 128}],
  "vars": {"B": {"vary": false}},
  "tunable": {"B": [64, 256, 512]}
})json";

TEST(LaunchOverridesTest, NamesTheCandidatesInstantiation) {
  Expected<LaunchSpecFile> F = parseSpec(TemplateSpec, "t.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  auto Name = [&](StringRef Text) -> std::string {
    Expected<LaunchOverrides> O = LaunchOverrides::parse(Text);
    if (!O)
      return "parse: " + messages(O.takeError());
    Expected<std::string> N = candidateKernelName(K, *O);
    return N ? *N : "error: " + messages(N.takeError());
  };
  // Without template-arg the spec's instantiation, whatever the block.
  EXPECT_EQ(Name("B=512"), "row_sum<float, 128>");
  EXPECT_EQ(Name("B=512,template-arg=1,template-value=512"),
            "row_sum<float, 512>");
  Expected<LaunchOverrides> O =
      LaunchOverrides::parse("B=64,template-arg=1,template-value=64");
  ASSERT_TRUE(bool(O));
  EXPECT_EQ(O->TemplateArg, 1);
  EXPECT_EQ(O->TemplateValue, 64);
  EXPECT_FALSE(O->empty());
  EXPECT_EQ(O->str(), "B=64,template-arg=1,template-value=64");
  // The new argument is the block size the candidate runs, on every shape
  // (resolveCandidateLaunch).
  auto Resolved = [&](StringRef Text) -> std::string {
    Expected<LaunchOverrides> O = LaunchOverrides::parse(Text);
    if (!O)
      return "parse: " + messages(O.takeError());
    for (const Shape &S : K.Shapes) {
      Expected<ResolvedLaunch> L = resolve(K, S);
      if (!L)
        return "resolve: " + messages(L.takeError());
      if (Error E = resolveCandidateLaunch(K, S, *O, *L))
        return "error: " + messages(std::move(E));
    }
    return "ok";
  };
  EXPECT_EQ(Resolved("B=512,template-arg=1,template-value=512"), "ok");
  EXPECT_THAT(Resolved("template-arg=1,template-value=512"),
              HasSubstr("runs 128 threads per block on {R=64, C=1000, "
                        "B=128}, but its instantiation's block size "
                        "(template-value) is 512"));
  EXPECT_THAT(Resolved("B=512,template-arg=1,template-value=256"),
              HasSubstr("(template-value) is 256"));
  EXPECT_THAT(Name("B=512,template-arg=1"), HasSubstr("go together"));
  EXPECT_THAT(Name("B=512,template-value=512"), HasSubstr("go together"));
  EXPECT_THAT(Name("B=512,template-arg=0,template-value=512"),
              HasSubstr("template argument 0 of 'row_sum<float, 128>' is not "
                        "an integer ('float')"));
  EXPECT_THAT(Name("B=512,template-arg=2,template-value=512"),
              HasSubstr("has 2 template argument(s)"));
  EXPECT_THAT(Name("B=512,template-arg=1,template-value=512,min-threads=4096"),
              HasSubstr("cannot go with min-threads"));
  EXPECT_THAT(Name("template-arg=-1"), HasSubstr("0 to 63"));
  EXPECT_THAT(Name("template-value=0"), HasSubstr("positive integer"));

  // A spec kernel that is not a template instantiation.
  Expected<LaunchSpecFile> G = parseSpec(GeluSpec, "g.json");
  ASSERT_TRUE(bool(G)) << messages(G.takeError());
  Expected<LaunchOverrides> T =
      LaunchOverrides::parse("B=512,template-arg=0,template-value=512");
  ASSERT_TRUE(bool(T));
  EXPECT_THAT(messages(candidateKernelName(G->Kernels[0], *T).takeError()),
              HasSubstr("is not a template instantiation"));
}

TEST(LaunchOverridesTest, RunsTheSmallEntryBelowTheBound) {
  Expected<LaunchSpecFile> F = parseSpec(GeluSpec, "g.json");
  ASSERT_TRUE(bool(F)) << messages(F.takeError());
  const KernelSpec &K = F->Kernels[0];
  const Shape &S = K.Shapes[0]; // 44032 threads
  Expected<LaunchOverrides> O =
      LaunchOverrides::parse("grid-x-div=8,min-threads=44033,small-entry=1");
  ASSERT_TRUE(bool(O)) << messages(O.takeError());
  EXPECT_TRUE(O->SmallEntry);
  EXPECT_FALSE(O->empty());
  EXPECT_EQ(O->str(), "grid-x-div=8,min-threads=44033,small-entry=1");
  Expected<ResolvedLaunch> L = resolve(K, S);
  ASSERT_TRUE(bool(L));
  // Below the bound: the spec's launch, of the small entry.
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_TRUE(L->Cand == L->dims());
  EXPECT_TRUE(L->CandSmall);
  // At it: the divided launch of the kernel itself.
  O = LaunchOverrides::parse("grid-x-div=8,min-threads=44032,small-entry=1");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_EQ(L->Cand.Grid[0], 6u);
  EXPECT_FALSE(L->CandSmall);
  // Without small-entry the kernel runs below the bound too.
  O = LaunchOverrides::parse("grid-x-div=8,min-threads=44033");
  ASSERT_TRUE(bool(O));
  ASSERT_FALSE(bool(resolveCandidateLaunch(K, S, *O, *L)));
  EXPECT_FALSE(L->CandSmall);

  auto Small = [&](const KernelSpec &Spec, StringRef Text) -> std::string {
    Expected<LaunchOverrides> O = LaunchOverrides::parse(Text);
    if (!O)
      return "parse: " + messages(O.takeError());
    Expected<std::string> N = smallKernelName(Spec, *O);
    return N ? *N : "error: " + messages(N.takeError());
  };
  EXPECT_EQ(Small(K, "grid-x-div=8,min-threads=4"), "");
  EXPECT_EQ(Small(K, "grid-x-div=8,min-threads=4,small-entry=1"),
            "gelu_and_mul_small");
  EXPECT_THAT(Small(K, "grid-x-div=8,small-entry=1"),
              HasSubstr("give the bound (min-threads=N)"));
  EXPECT_THAT(Small(K, "small-entry=2"), HasSubstr("0 or 1"));
  Expected<LaunchSpecFile> T = parseSpec(TemplateSpec, "t.json");
  ASSERT_TRUE(bool(T)) << messages(T.takeError());
  EXPECT_EQ(Small(T->Kernels[0], "B=512,min-threads=4,small-entry=1"),
            "row_sum_small<float, 128>");
  EXPECT_THAT(Small(T->Kernels[0], "B=512,min-threads=4,small-entry=1,"
                                   "template-arg=1,template-value=512"),
              HasSubstr("cannot go with template-arg"));
}

} // namespace
