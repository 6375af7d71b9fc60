//===- PtxScanTest.cpp - Stores to module-scope .global variables ---------===//
#include "astra/Harness/PtxScan.h"
#include "astra/Harness/Verify.h"
#include "gtest/gtest.h"

using namespace astra;
using namespace llvm;

namespace {

// What clang emits for `atomicAdd(&blocks_run, 1u)` and for a store through
// the variable's address, plus globals that are only read.
const char *Cand = R"(
.version 8.8
.target sm_90a
.address_size 64

.visible .global .align 4 .u32 blocks_run;
.global .align 4 .u32 flag = 1;
.visible .global .align 8 .b8 table[64];
.global .align 4 .u32 read_only;
.visible .entry _Z1kPf(
	.param .u64 .ptr .align 1 _Z1kPf_param_0
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<4>;
	.shared .align 1 .u8 _ZZ1kPfE4skip;
	atom.global.add.u32 	%r2, [blocks_run], 1;
	st.shared.b8 	[_ZZ1kPfE4skip], %rs1;
	ld.global.u32 	%r3, [read_only];
	mov.u64 	%rd1, table;
	cvta.global.u64 	%rd2, %rd1;
	add.s64 	%rd3, %rd2, 16;
	@%p1 st.u32 	[%rd3+4], %r3;
	ret;
}
)";

const char *Orig = R"(
.global .align 4 .u32 flag = 1;
.visible .entry _Z1kPf()
{
	red.global.add.u32 	[flag], 1;
	ret;
}
)";

TEST(PtxScanTest, GlobalStores) {
  EXPECT_EQ(findGlobalStores(Cand),
            (std::vector<std::string>{"blocks_run", "table"}));
  EXPECT_EQ(findGlobalStores(Orig), (std::vector<std::string>{"flag"}));
  EXPECT_TRUE(findGlobalStores(".global .u32 g;\n.entry k()\n{\n"
                               "ld.global.u32 %r1, [g];\n}\n")
                  .empty());
}

TEST(PtxScanTest, NotesNameOnlyNewState) {
  std::vector<std::string> Notes = globalStateNotes(Orig, Cand);
  ASSERT_EQ(Notes.size(), 2u);
  EXPECT_NE(Notes[0].find("'blocks_run'"), std::string::npos) << Notes[0];
  EXPECT_EQ(Notes[0].rfind("warning: ", 0), 0u);
  EXPECT_NE(Notes[1].find("'table'"), std::string::npos);
  EXPECT_TRUE(globalStateNotes(Cand, Cand).empty());
}

} // namespace

namespace {
// A spec may name a torch instantiation with the at:: alias.
TEST(PtxScanTest, EntryOfATorchInstantiation) {
  const char *Ptx = ".visible .entry _Z1kIN3c104HalfEEvPT_(\n"
                    ".visible .entry _Z1kIfEvPT_(\n";
  llvm::Expected<std::string> E = astra::findPtxEntry(Ptx, "k<at::Half>");
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_EQ(*E, "_Z1kIN3c104HalfEEvPT_");
  llvm::Expected<std::string> C = astra::findPtxEntry(Ptx, "k<c10::Half>");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(*C, *E);
  llvm::Expected<std::string> F = astra::findPtxEntry(Ptx, "k<double>");
  EXPECT_FALSE(bool(F));
  llvm::consumeError(F.takeError());
}
} // namespace

namespace {
// FlashInfer's kernels as the spec names them (as --print-kernel-model
// prints the instantiations): an unsigned template argument without the
// demangler's `u`, a function template argument by its name, and the
// kernel with or without its namespace.
TEST(PtxScanTest, EntryWithIntegerAndFunctionTemplateArguments) {
  const char *Ptx =
      ".visible .entry "
      "_ZN10flashinfer10activation18act_and_mul_kernelI6__halfXadL_"
      "Z4siluIfET_RKS4_EEEEvPS4_PS5_i(\n"
      ".visible .entry "
      "_ZN10flashinfer4norm13RMSNormKernelILj8E6__halfEEvPT0_S4_S4_jjjff(\n";
  for (const char *Name : {"flashinfer::norm::RMSNormKernel<8, __half>",
                           "RMSNormKernel<8, __half>",
                           "flashinfer::norm::RMSNormKernel<8u,__half>"}) {
    llvm::Expected<std::string> E = astra::findPtxEntry(Ptx, Name);
    ASSERT_TRUE(bool(E)) << Name << ": " << llvm::toString(E.takeError());
    EXPECT_EQ(*E, "_ZN10flashinfer4norm13RMSNormKernelILj8E6__halfEEvPT0_S4_"
                  "S4_jjjff");
  }
  llvm::Expected<std::string> A = astra::findPtxEntry(
      Ptx, "flashinfer::activation::act_and_mul_kernel<__half, silu<float>>");
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  EXPECT_EQ(StringRef(*A).take_front(41),
            "_ZN10flashinfer10activation18act_and_mul_");
  for (const char *Wrong : {"RMSNormKernel<4, __half>",
                            "act_and_mul_kernel<__half, gelu<float>>"}) {
    llvm::Expected<std::string> F = astra::findPtxEntry(Ptx, Wrong);
    EXPECT_FALSE(bool(F)) << Wrong;
    llvm::consumeError(F.takeError());
  }
}
} // namespace
