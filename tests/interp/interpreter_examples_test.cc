// The interpreter on every example kernel, against straightforward C++ references
// computed in double and compared with docs/semantics.md's tolerances.
#include "build_paths.h"
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace tilec::ir {
namespace {

struct ExampleRun {
  PrimFunc func;
  RandomArgs args;
};

ExampleRun run_example(const std::string& name, std::map<std::string, std::string> defines = {}) {
  IRModule module =
      parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/" + name, std::move(defines));
  EXPECT_EQ(module.size(), 1u);
  auto diagnostics = check_module(module);
  EXPECT_TRUE(diagnostics.empty()) << format_diagnostics(diagnostics, name);
  ExampleRun run{module.functions()[0], {}};
  run.args = make_random_args(run.func, {}, 7);
  interpret(run.func, run.args.args);
  return run;
}

// Fills a tensor shaped like `like` from fn(flat index) and compares `actual` with it.
void expect_matches(const HostTensor& actual, const std::function<double(int64_t)>& fn) {
  HostTensor expected(actual.dtype(), actual.shape());
  for (int64_t i = 0; i < expected.numel(); ++i) expected.set(i, fn(i));
  CompareResult r = compare_tensors(actual.view(), expected.view());
  EXPECT_TRUE(r.ok) << r.first_mismatch << " (" << r.mismatches << " mismatches)";
}

TEST(InterpreterExamples, VectorAdd) {
  for (const char* n : {"4096", "1000"}) {  // 1000: the last block is partly outside
    ExampleRun r = run_example("vector_add.py", {{"N", n}});
    const auto& t = r.args.tensors;
    expect_matches(t[2], [&](int64_t i) { return t[0].get(i) + t[1].get(i); });
  }
}

TEST(InterpreterExamples, BiasGelu) {
  ExampleRun r = run_example("bias_gelu.py");
  const auto& t = r.args.tensors;
  int64_t n = t[1].numel();
  expect_matches(t[2], [&](int64_t i) {
    double x = t[0].get(i) + t[1].get(i % n);
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  });
}

void expect_gemm(const ExampleRun& r) {
  const auto& t = r.args.tensors;
  int64_t m = t[0].shape()[0], k = t[0].shape()[1], n = t[1].shape()[1];
  std::vector<double> a(size_t(m * k)), b(size_t(k * n));
  for (int64_t i = 0; i < m * k; ++i) a[size_t(i)] = t[0].get(i);
  for (int64_t i = 0; i < k * n; ++i) b[size_t(i)] = t[1].get(i);
  expect_matches(t[2], [&](int64_t flat) {
    int64_t i = flat / n, j = flat % n;
    double sum = 0;
    for (int64_t x = 0; x < k; ++x) sum += a[size_t(i * k + x)] * b[size_t(x * n + j)];
    return sum;
  });
}

TEST(InterpreterExamples, GemmFloat16WithFloat32Accumulation) {
  expect_gemm(run_example("gemm.py"));
}
TEST(InterpreterExamples, GemmFloat32) {
  expect_gemm(run_example("gemm_fp32.py"));
}
TEST(InterpreterExamples, GemmWithTilesThatDoNotDivide) {
  expect_gemm(run_example("gemm_fp32.py", {{"M", "100"}, {"N", "72"}, {"K", "40"}}));
}

TEST(InterpreterExamples, RowSum) {
  ExampleRun r = run_example("reduce_sum.py");
  const auto& t = r.args.tensors;
  int64_t n = t[0].shape()[1];
  expect_matches(t[1], [&](int64_t i) {
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += t[0].get(i * n + j);
    return sum;
  });
}

TEST(InterpreterExamples, Softmax) {
  ExampleRun r = run_example("softmax.py");
  const auto& t = r.args.tensors;
  int64_t n = t[0].shape()[1];
  expect_matches(t[1], [&](int64_t flat) {
    int64_t row = flat / n;
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < n; ++j) mx = std::max(mx, t[0].get(row * n + j));
    for (int64_t j = 0; j < n; ++j) sum += std::exp(t[0].get(row * n + j) - mx);
    return std::exp(t[0].get(flat) - mx) / sum;
  });
}

TEST(InterpreterExamples, EdgeTilesAreMasked) {
  ExampleRun r = run_example("edge_tiles.py");
  const auto& t = r.args.tensors;
  expect_matches(t[2], [&](int64_t i) { return 2.0 * t[0].get(i) + t[1].get(i); });
}

}  // namespace
}  // namespace tilec::ir
