#include "astra/Codegen/LocalMemory.h"
#include "gtest/gtest.h"

using namespace astra;

// Two entries; only the first keeps an array in local memory. A name that
// extends another (_Z1kPf2) is not mistaken for it, a nested block's brace
// does not end the body, and a commented-out access is not counted.
static const char *Ptx = R"(
.visible .entry _Z1kPf(
	.param .u64 _Z1kPf_param_0
)
{
	.local .align 16 .b8 	__local_depot0[32];
	.reg .b64 %SP;
	mov.b64 	%SPL, __local_depot0;
	st.local.v4.f32 	[%rd1], {%f1, %f2, %f3, %f4};
	{
	.reg .b32 temp_param_reg;
	}
	@%p1 ld.local.f32 	%f5, [%rd2];
	// st.local.f32 [%rd3], %f6;
	ret;
}
.visible .entry _Z1kPf2(
	.param .u64 _Z1kPf2_param_0
)
{
	ld.global.f32 	%f1, [%rd1];
	ret;
}
)";

TEST(LocalMemoryTest, ScansOneEntry) {
  PtxLocalUse K = scanPtxLocalUse(Ptx, "_Z1kPf");
  EXPECT_EQ(K.DepotBytes, 32u);
  EXPECT_EQ(K.Accesses, 2u);
  PtxLocalUse K2 = scanPtxLocalUse(Ptx, "_Z1kPf2");
  EXPECT_EQ(K2.DepotBytes, 0u);
  EXPECT_EQ(K2.Accesses, 0u);
  EXPECT_EQ(scanPtxLocalUse(Ptx, "_Z4nonev").Accesses, 0u);
}

TEST(LocalMemoryTest, PtxDecidesWithoutPtxas) {
  LocalMemoryUse Before = getLocalMemoryUse(Ptx, "_Z1kPf2", nullptr);
  LocalMemoryUse After = getLocalMemoryUse(Ptx, "_Z1kPf", nullptr);
  EXPECT_FALSE(After.Measured);
  EXPECT_EQ(describeLocalMemoryGrowth(Before, After),
            "PTX local depot bytes 0 -> 32, PTX ld/st.local 0 -> 2");
  EXPECT_EQ(describeLocalMemoryGrowth(After, Before), "");
  EXPECT_EQ(describeLocalMemoryGrowth(After, After), "");
}

TEST(LocalMemoryTest, PtxasDecidesWhenItRan) {
  KernelResources None{"_Z1kPf2"}, Stack{"_Z1kPf"};
  Stack.StackFrameBytes = 32;
  Stack.SpillStoreBytes = 8;
  LocalMemoryUse Before = getLocalMemoryUse(Ptx, "_Z1kPf2", &None);
  LocalMemoryUse After = getLocalMemoryUse(Ptx, "_Z1kPf", &Stack);
  EXPECT_EQ(describeLocalMemoryGrowth(Before, After),
            "stack frame bytes 0 -> 32, spill-store bytes 0 -> 8");
  // ptxas kept the PTX's local array in registers: no growth.
  LocalMemoryUse Promoted = getLocalMemoryUse(Ptx, "_Z1kPf", &None);
  EXPECT_EQ(Promoted.Ptx.Accesses, 2u);
  EXPECT_EQ(describeLocalMemoryGrowth(Before, Promoted), "");
}
