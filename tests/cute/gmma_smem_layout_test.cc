// tilec's closed form of the GMMA operand layouts (gmma_smem_layout.h), which the CuTe
// variant's shared tiles take when a wgmma gemm reads them, checked against CuTe itself: a
// host program built with nvcc asks CUTLASS 4.2's headers where tile_to_shape(GMMA atom,
// shape) puts every element of a tile (the address a smem tensor gives each stored
// (row, col)), both through CodeGenCuTe's own SmemLayout (what its copy and gemm helpers
// use) and as the device helper smem_offset (what every other access of the tile uses),
// and tilec's offset() must agree with both on every element. Skips when nvcc or the
// headers are missing.
#include "cute_test_support.h"
#include "sanitized_run.h"

#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/cute/codegen_cute.h"
#include "tilec/cute/cutlass_headers.h"
#include "tilec/cute/gmma_smem_layout.h"
#include "tilec/exec/process.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;
using L = cute::GmmaSmemLayout;

std::string name_of(const L& l) {
  return fmt::format("{}_{}_{}x{}_{}", int(l.major), l.bits, l.rows, l.cols, l.element_bytes);
}

TEST(GmmaSmemLayout, TheWidestSwizzleWhoseAtomDividesTheTile) {
  EXPECT_EQ(cute::choose_gmma_smem_layout(L::kK, 64, 64, 2)->bits, 3);
  EXPECT_EQ(cute::choose_gmma_smem_layout(L::kK, 64, 32, 2)->bits, 2);
  EXPECT_EQ(cute::choose_gmma_smem_layout(L::kK, 64, 16, 2)->bits, 1);
  EXPECT_EQ(cute::choose_gmma_smem_layout(L::kMN, 32, 24, 2)->bits, 0);
  EXPECT_EQ(cute::choose_gmma_smem_layout(L::kK, 64, 128, 1)->bits, 3);
  EXPECT_FALSE(cute::choose_gmma_smem_layout(L::kK, 60, 64, 2)) << "rows not a multiple of 8";
  EXPECT_FALSE(cute::choose_gmma_smem_layout(L::kK, 64, 4, 2)) << "less than one 16-byte chunk";
  auto l = cute::choose_gmma_smem_layout(L::kMN, 32, 64, 2);
  EXPECT_EQ(l->cute_atom(), "GMMA::Layout_MN_SW128_Atom");
  EXPECT_EQ(cute::gmma_smem_layout_of_code(l->code(), 32, 64, 2)->bits, 3);
  EXPECT_FALSE(cute::gmma_smem_layout_of_code(0, 32, 64, 2));
}

TEST(GmmaSmemLayout, TheClosedFormIsCuteTileToShape) {
  TILEC_SKIP_TOOLCHAIN_BOUND_WHEN_SANITIZED("compiling CuTe's headers");
  if (auto reason = testing::host_cute_unavailable_reason(); !reason.empty())
    GTEST_SKIP() << reason;
  std::vector<L> layouts;
  for (auto major : {L::kK, L::kMN}) {
    for (int64_t bytes : {2, 1}) {
      for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
               {16, 128}, {64, 32}, {8, 64}, {24, 16}, {16, 8}, {32, 48}}) {
        if (auto l = cute::choose_gmma_smem_layout(major, rows, cols * 2 / bytes, bytes))
          layouts.push_back(*l);
      }
    }
  }
  std::set<int> seen_bits;
  for (const L& l : layouts) seen_bits.insert(l.bits + 4 * l.major);
  ASSERT_EQ(seen_bits.size(), 8u) << "every atom of both majors is checked";
  std::string program = R"CU(#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cstdio>
#define __device__
#define __forceinline__ inline
namespace tilec_cute {
using namespace cute;
template <class T, int Code, int Rows, int Cols> struct SmemLayout;
template <bool Swap, class L> auto swap_modes(L l) {
  if constexpr (!Swap) return l;
  else return make_composed_layout(l.layout_a(), l.offset(), select<1, 0>(l.layout_b()));
}
}  // namespace tilec_cute
)CU";
  program += cute::gmma_layout_helpers();
  program += R"CU(
using namespace cute;
template <class T, class Atom, int Code, int Rows, int Cols, bool MN>
void dump(const char* name) {
  // The logical (MN, K) operand; a stored MN-major tile is its transpose.
  auto logical = tile_to_shape(Atom{}, Shape<Int<MN ? Cols : Rows>, Int<MN ? Rows : Cols>>{});
  auto stored = [&] {
    if constexpr (MN) return make_composed_layout(logical.layout_a(), logical.offset(), select<1, 0>(logical.layout_b()));
    else return logical;
  }();
  T* base = reinterpret_cast<T*>(uintptr_t(1) << 20);
  auto t = make_tensor(make_smem_ptr(base), stored);
  auto helper = make_tensor(make_smem_ptr(base), tilec_cute::SmemLayout<T, Code, Rows, Cols>::make());
  for (int r = 0; r < Rows; ++r)
    for (int c = 0; c < Cols; ++c)
      std::printf("%s %d %d %d %d\n", name, r * Cols + c, int(raw_pointer_cast(&t(r, c)) - base),
                  int(raw_pointer_cast(&helper(r, c)) - base),
                  tilec_cute::smem_offset<Code, Rows, Cols, int(sizeof(T))>(r * Cols + c));
}
int main() {
)CU";
  for (const L& l : layouts) {
    program += fmt::format("  dump<{}, {}<{}>, {}, {}, {}, {}>(\"{}\");\n",
                           l.element_bytes == 2 ? "half_t" : "uint8_t", l.cute_atom(),
                           l.element_bytes == 2 ? "half_t" : "uint8_t", l.code(), l.rows, l.cols,
                           l.major == L::kMN ? "true" : "false", name_of(l));
  }
  program += "  return 0;\n}\n";
  exec::ProcessResult ran = testing::run_host_cute_program("gmma-smem-layout", program);
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  std::map<std::string, const L*> by_name;
  for (const L& l : layouts) by_name[name_of(l)] = &l;
  std::map<std::string, std::set<int64_t>> offsets;
  std::istringstream lines(ran.output);
  std::string name;
  int64_t flat, offset, helper_layout, helper_offset;
  int64_t checked = 0;
  while (lines >> name >> flat >> offset >> helper_layout >> helper_offset) {
    const L& l = *by_name.at(name);
    SCOPED_TRACE(fmt::format("{}: element {}", l.describe(), flat));
    ASSERT_EQ(l.offset(flat), offset);
    ASSERT_EQ(helper_layout, offset) << "CodeGenCuTe's SmemLayout";
    ASSERT_EQ(helper_offset, offset) << "CodeGenCuTe's smem_offset";
    // A second stage is the same layout one tile further on.
    EXPECT_EQ(l.offset(flat + l.rows * l.cols), offset + l.rows * l.cols);
    offsets[name].insert(offset);
    ++checked;
  }
  for (const L& l : layouts) {
    EXPECT_EQ(int64_t(offsets[name_of(l)].size()), l.rows * l.cols)
        << l.describe() << ": CuTe listed every element once, a bijection on the tile";
  }
  EXPECT_GT(checked, 0);
}

TEST(GmmaSmemLayout, TheIrIndexIsTheHelperCall) {
  auto l = cute::choose_gmma_smem_layout(L::kMN, 32, 64, 2);
  ir::Var flat = ir::make_var("flat");
  ir::Expr index = l->index(flat);
  const auto* call = index.as<ir::CallNode>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->name, cute::kGmmaSmemOffsetCall);
  ASSERT_EQ(call->args.size(), 5u);
  EXPECT_TRUE(call->args[0].same_as(flat));
  std::vector<int64_t> params;
  for (size_t i = 1; i < 5; ++i) params.push_back(*ir::as_const_int(call->args[i]));
  EXPECT_EQ(params, (std::vector<int64_t>{l->code(), 32, 64, 2}));
}

}  // namespace
}  // namespace tilec
