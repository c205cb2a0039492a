// tilec's closed form of the TiledMMA's C partition (cute_accumulator_layout), which the
// SIMT lowering uses to run element-wise code over the accumulator's registers, checked
// against CuTe itself: a host program built with nvcc asks CUTLASS 4.2's headers, for
// each TiledMMA the variant builds (SM80 and SM90 GMMA tensor-core atoms, FMA), which
// (row, column) every thread's register r of
// thr_mma.partition_C(identity tensor) holds, and the layout must give the same element
// for every (thread, register) and map it back. Skips when nvcc or the headers are
// missing.
#include "cute_test_support.h"
#include "sanitized_run.h"

#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/cute/cute_gemm.h"
#include "tilec/cute/cutlass_headers.h"
#include "tilec/exec/process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

struct Config {
  cute::CuteGemmPlan plan;
  int64_t threads;
  std::string name() const {
    return fmt::format("a{}_{}x{}_{}x{}_{}", int(plan.atom), plan.wm, plan.wn, plan.m, plan.n,
                       plan.atom_n);
  }
};

cute::CuteGemmPlan plan(cute::CuteGemmPlan::Atom atom, int64_t wm, int64_t wn, int64_t m, int64_t n,
                        int64_t atom_n = 8) {
  cute::CuteGemmPlan p;
  p.atom = atom;
  p.wm = wm;
  p.wn = wn;
  p.m = m;
  p.n = n;
  p.k = 16;
  p.atom_n = atom_n;
  if (p.gmma()) {
    p.layout_a = cute::GmmaSmemLayout{cute::GmmaSmemLayout::kK, 1, m, 16, 2};
    p.layout_b = cute::GmmaSmemLayout{cute::GmmaSmemLayout::kK, 1, n, 16, 2};
  }
  return p;
}

TEST(CutePartition, TheClosedFormIsCuteOwnPartitionC) {
  TILEC_SKIP_TOOLCHAIN_BOUND_WHEN_SANITIZED("compiling CuTe's headers");
  if (auto reason = testing::host_cute_unavailable_reason(); !reason.empty())
    GTEST_SKIP() << reason;
  using P = cute::CuteGemmPlan;
  std::vector<Config> configs = {
      {plan(P::kSm80F16, 2, 2, 64, 64), 128},
      {plan(P::kSm80BF16, 1, 4, 16, 32), 128},
      {plan(P::kSm80F16, 4, 2, 128, 64), 256},
      {plan(P::kSm80F16, 2, 1, 64, 16), 64},
      {plan(P::kFma, 8, 16, 64, 64), 128},
      {plan(P::kFma, 4, 8, 16, 32), 32},
      // GMMA: one warpgroup, one atom; two warpgroups along M and along N; repeats of the
      // atom along both (MMA_M = MMA_N = 2); bfloat16's 64 x 8 atom.
      {plan(P::kSm90F16, 1, 1, 64, 64, 64), 128},
      {plan(P::kSm90F16, 2, 1, 128, 128, 128), 256},
      {plan(P::kSm90F16, 1, 2, 64, 64, 32), 256},
      {plan(P::kSm90F16, 1, 1, 128, 64, 32), 128},
      {plan(P::kSm90BF16, 1, 1, 64, 16, 8), 128},
  };
  std::string program = R"CU(#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cstdio>
using namespace cute;
template <class Atom, int WM, int WN, int M, int N>
void dump(const char* name) {
  auto mma = make_tiled_mma(Atom{}, Layout<Shape<Int<WM>, Int<WN>, _1>>{});
  for (int t = 0; t < int(size(mma)); ++t) {
    auto thr = mma.get_thread_slice(t);
    Tensor cC = thr.partition_C(make_identity_tensor(make_shape(Int<M>{}, Int<N>{})));
    for (int r = 0; r < int(size(cC)); ++r) {
      auto c = cC(r);
      std::printf("%s %d %d %d %d\n", name, t, r, int(get<0>(c)), int(get<1>(c)));
    }
  }
}
int main() {
)CU";
  for (const auto& c : configs) {
    program += fmt::format("  dump<{}, {}, {}, {}, {}>(\"{}\");\n", c.plan.atom_name(), c.plan.wm,
                           c.plan.wn, c.plan.m, c.plan.n, c.name());
  }
  program += "  return 0;\n}\n";
  exec::ProcessResult ran = testing::run_host_cute_program("cute-partition", program);
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  std::map<std::string, const Config*> by_name;
  for (const auto& c : configs) by_name[c.name()] = &c;
  std::map<std::string, gpu::FragmentLayout> layouts;
  for (const auto& c : configs)
    layouts.emplace(c.name(), cute::cute_accumulator_layout(c.plan, c.threads));
  std::map<std::string, int64_t> seen;
  std::istringstream lines(ran.output);
  std::string name;
  int64_t t, r, i, j;
  while (lines >> name >> t >> r >> i >> j) {
    const gpu::FragmentLayout& layout = layouts.at(name);
    SCOPED_TRACE(fmt::format("{}: thread {} register {}", name, t, r));
    auto element = layout.element_at(t, r);
    ASSERT_TRUE(element.has_value());
    EXPECT_EQ(*element, (std::vector<int64_t>{i, j}));
    EXPECT_EQ(layout.thread_at({i, j}), t);
    EXPECT_EQ(layout.register_at({i, j}), r);
    ++seen[name];
  }
  for (const auto& c : configs) {
    EXPECT_EQ(seen[c.name()], c.plan.m * c.plan.n) << c.name() << ": CuTe listed every element";
    EXPECT_EQ(layouts.at(c.name()).registers * c.threads, c.plan.m * c.plan.n);
    EXPECT_EQ(gpu::check_layout(layouts.at(c.name())), "") << c.name();
  }
}

}  // namespace
}  // namespace tilec
