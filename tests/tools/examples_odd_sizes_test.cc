// Every example is correct at every size it accepts, not only at its own: each one runs
// through `tilec run --bounds-check --check` on `c` (one backend keeps CI lean; the index
// checks are the shared bounds-check pass, the same on every cpu target) at small sizes that
// no tile of it divides. An access past a tensor's end is an error naming the line, and the
// result must match the reference interpreter. A new example without an entry in
// odd_sizes() fails ExamplesAtOddSizes.EveryExampleHasOddSizes, so none goes untested.
// Split-K is also checked against A @ B^T computed here: overlapping K slices read the
// same columns twice in the interpreter too, so only an outside reference sees that.
#include "../cli_support.h"
#include "build_paths.h"
#include "tilec/ir/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tilec {
namespace {

namespace fs = std::filesystem;
using testing::tilec_cli;

// -D values per example (file stem): sizes that are no multiple of any block size, and that
// satisfy the example's own asserts (mla_decode needs seqlen_kv % (block_N * num_split) == 0,
// dequant_gemm an even K; they refuse other sizes with a clear error).
const std::map<std::string, std::vector<std::string>>& odd_sizes() {
  static const std::map<std::string, std::vector<std::string>> sizes = {
      {"bias_gelu", {"M=37", "N=129"}},
      {"chunked_cumsum", {"M=13", "N=97"}},
      {"cumsum", {"M=13", "N=97"}},
      {"dequant_gemm", {"M=37", "N=21", "K=46"}},
      {"dequant_gemm_fp8", {"M=37", "N=21", "K=45"}},
      {"edge_tiles", {"M=37", "N=21"}},
      {"flash_attention", {"batch=1", "heads=6", "groups=3", "seq_len=37", "dim=24"}},
      {"flash_attention_autotune", {"batch=1", "seq_len=37"}},
      {"gemm", {"M=37", "N=21", "K=45"}},
      {"gemm_autotune", {"M=37", "N=21", "K=45"}},
      {"gemm_fp32", {"M=37", "N=21", "K=45"}},
      {"gemm_nt", {"M=37", "N=21", "K=45"}},
      {"gemm_splitk", {"M=37", "N=21", "K=45"}},
      {"gemm_swizzle", {"M=37", "N=21", "K=45"}},
      {"gemv", {"N=37", "K=45"}},
      {"layer_norm", {"M=13", "N=37"}},
      {"linear_attention", {"batch=1", "heads=3", "seq_len=37", "dim_k=24", "dim_v=20"}},
      {"mla_decode", {"batch=1", "heads=12", "seqlen_kv=64", "dim=40", "pe_dim=12"}},
      {"reduce_sum", {"M=37", "N=21"}},
      {"rms_norm", {"M=37", "N=21"}},
      {"softmax", {"M=37", "N=21"}},
      {"vector_add", {"N=37"}},
  };
  return sizes;
}

std::vector<std::string> example_stems() {
  std::vector<std::string> stems;
  fs::path dir = fs::path(TILEC_SOURCE_DIR) / "examples";
  if (!fs::is_directory(dir)) return stems;
  for (const auto& item : fs::directory_iterator(dir))
    if (item.path().extension() == ".py") stems.push_back(item.path().stem().string());
  std::sort(stems.begin(), stems.end());
  return stems;
}

std::vector<std::string> run_args(const std::string& stem) {
  std::vector<std::string> args = {
      "run",    testing::example((stem + ".py").c_str()), "--target", "c", "--bounds-check",
      "--check"};
  for (const auto& define : odd_sizes().at(stem)) {
    args.push_back("-D");
    args.push_back(define);
  }
  return args;
}

class ExamplesAtOddSizes : public ::testing::TestWithParam<std::string> {};

TEST_P(ExamplesAtOddSizes, StayInBoundsAndMatchTheInterpreter) {
  const std::string& stem = GetParam();
  if (!odd_sizes().count(stem)) GTEST_SKIP() << stem << " has no entry (EveryExampleHasOddSizes)";
  auto result = tilec_cli(run_args(stem));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find(": ok ("), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("MISMATCH"), std::string::npos) << result.output;
}

INSTANTIATE_TEST_SUITE_P(Every, ExamplesAtOddSizes, ::testing::ValuesIn(example_stems()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ExamplesAtOddSizes);

TEST(ExamplesAtOddSizesTable, EveryExampleHasOddSizes) {
  std::vector<std::string> stems = example_stems();
  ASSERT_FALSE(stems.empty()) << "no examples in " << TILEC_SOURCE_DIR << "/examples";
  for (const auto& stem : stems)
    EXPECT_TRUE(odd_sizes().count(stem))
        << "examples/" << stem << ".py has no odd sizes in tests/tools/examples_odd_sizes_test.cc";
}

// C = A @ B^T over all of K: with K=45 and split_k=4 no slice is a whole number of tiles.
TEST(ExamplesAtOddSizesTable, SplitKSumsEveryColumnOnce) {
  const int64_t m = 37, n = 21, k = 45;
  fs::path dir = fs::path(TILEC_BINARY_DIR) / "test-tmp" / ("splitk-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ir::HostTensor zeros(ir::DataType::Float32(), {m, n});
  for (int64_t i = 0; i < m * n; ++i) zeros.set(i, 0.0);
  ir::write_npy((dir / "c0.npy").string(), zeros.view());
  auto result = tilec_cli({"run", testing::example("gemm_splitk.py"), "--target", "c", "-D", "M=37",
                           "-D", "N=21", "-D", "K=45", "--inputs", "C=" + (dir / "c0.npy").string(),
                           "--save", dir.string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  ir::HostTensor a = ir::read_npy((dir / "matmul_split_k.A.npy").string());
  ir::HostTensor b = ir::read_npy((dir / "matmul_split_k.B.npy").string());
  ir::HostTensor c = ir::read_npy((dir / "matmul_split_k.C.npy").string());
  double worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l) sum += a.get(i * k + l) * b.get(j * k + l);
      worst = std::max(worst, std::abs(sum - c.get(i * n + j)));
    }
  EXPECT_LT(worst, 1e-3) << "split-K result differs from A @ B^T by " << worst;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tilec
