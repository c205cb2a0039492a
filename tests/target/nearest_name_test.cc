#include "tilec/target/nearest_name.h"

#include <gtest/gtest.h>

namespace tilec::target {
namespace {

TEST(NearestName, SuggestsOnlyPlausibleTypos) {
  std::vector<std::string> names{"native", "nvrtc", "source"};
  EXPECT_EQ(nearest_name("natve", names), "native");
  EXPECT_EQ(nearest_name("opencl", names), std::nullopt);
  EXPECT_EQ(nearest_name("x", {}), std::nullopt);
}

TEST(NearestName, ASwapOfNeighboursIsOneTypo) {
  EXPECT_EQ(nearest_name("arhc", {"arch", "mcpu"}), "arch");
  EXPECT_EQ(nearest_name("fsat", {"fast"}), "fast");
}

TEST(NearestName, BudgetGrowsWithTheNameUpToThree) {
  // Two edits are too many for a five-letter name, fine for a long one; four never are.
  EXPECT_EQ(nearest_name("cxxda", {"cuda"}), std::nullopt);
  EXPECT_EQ(nearest_name("test.unrol_fctor", {"test.unroll_factor"}), "test.unroll_factor");
  EXPECT_EQ(nearest_name("test.ur_fctr", {"test.unroll_factor"}), std::nullopt);
}

TEST(NearestName, TiesGoToTheEarlierCandidate) {
  EXPECT_EQ(nearest_name("cat", {"bat", "hat"}), "bat");
}

TEST(NearestName, DidYouMeanAndJoinNames) {
  EXPECT_EQ(did_you_mean("cudaa", {"c", "cuda"}), " (did you mean 'cuda'?)");
  EXPECT_EQ(did_you_mean("zzz", {"c", "cuda"}), "");
  EXPECT_EQ(join_names({}), "(none)");
  EXPECT_EQ(join_names({"a", "b"}), "a, b");
}

}  // namespace
}  // namespace tilec::target
