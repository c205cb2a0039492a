// tilec's closed form of the GMMA operand layouts (gmma_smem_layout.h), which the CuTe
// variant's shared tiles take when a wgmma gemm reads them, checked against CuTe itself: a
// host program built with nvcc asks CUTLASS 4.2's headers where tile_to_shape(GMMA atom,
// shape) puts every element of a tile (the address a smem tensor gives each stored
// (row, col)), and the closed form, as integers and as IR, must agree on every element.
// Skips when nvcc or the headers are missing.
#include "../engine/test_support.h"

#include "tilec/cute/cutlass_headers.h"
#include "tilec/cute/gmma_smem_layout.h"
#include "tilec/exec/cuda_toolkit.h"
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
  auto include = cute::cutlass_include_dir();
  if (!include) GTEST_SKIP() << cute::cutlass_unavailable_reason();
  fs::path nvcc = exec::cuda_toolkit_root() / "bin" / "nvcc";
  if (!fs::exists(nvcc)) GTEST_SKIP() << "no nvcc at " << nvcc;
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
using namespace cute;
template <class T, class Atom, int Rows, int Cols, bool MN>
void dump(const char* name) {
  // The logical (MN, K) operand; a stored MN-major tile is its transpose.
  auto logical = tile_to_shape(Atom{}, Shape<Int<MN ? Cols : Rows>, Int<MN ? Rows : Cols>>{});
  auto stored = [&] {
    if constexpr (MN) return make_composed_layout(logical.layout_a(), logical.offset(), select<1, 0>(logical.layout_b()));
    else return logical;
  }();
  T* base = reinterpret_cast<T*>(uintptr_t(1) << 20);
  auto t = make_tensor(make_smem_ptr(base), stored);
  for (int r = 0; r < Rows; ++r)
    for (int c = 0; c < Cols; ++c)
      std::printf("%s %d %d\n", name, r * Cols + c, int(raw_pointer_cast(&t(r, c)) - base));
}
int main() {
)CU";
  for (const L& l : layouts) {
    program += fmt::format("  dump<{}, {}<{}>, {}, {}, {}>(\"{}\");\n",
                           l.element_bytes == 2 ? "half_t" : "uint8_t", l.cute_atom(),
                           l.element_bytes == 2 ? "half_t" : "uint8_t", l.rows, l.cols,
                           l.major == L::kMN ? "true" : "false", name_of(l));
  }
  program += "  return 0;\n}\n";
  fs::path dir = testing::test_temp_dir("gmma-smem-layout");
  { std::ofstream(dir / "layout.cu") << program; }
  exec::ProcessResult built =
      exec::run_process({nvcc.string(), "-std=c++17", "-I" + include->string(),
                         (dir / "layout.cu").string(), "-o", (dir / "layout").string()});
  ASSERT_EQ(built.exit_code, 0) << built.output;
  exec::ProcessResult ran = exec::run_process({(dir / "layout").string()});
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  std::map<std::string, const L*> by_name;
  for (const L& l : layouts) by_name[name_of(l)] = &l;
  std::map<std::string, std::set<int64_t>> offsets;
  std::istringstream lines(ran.output);
  std::string name;
  int64_t flat, offset;
  int64_t checked = 0;
  while (lines >> name >> flat >> offset) {
    const L& l = *by_name.at(name);
    SCOPED_TRACE(fmt::format("{}: element {}", l.describe(), flat));
    ASSERT_EQ(l.offset(flat), offset);
    // A second stage is the same layout one tile further on.
    EXPECT_EQ(l.offset(flat + l.rows * l.cols), offset + l.rows * l.cols);
    const int64_t* folded =
        ir::as_const_int(transform::simplify(l.index(ir::make_int(flat, ir::DataType::Int32()))));
    ASSERT_NE(folded, nullptr);
    EXPECT_EQ(*folded, offset);
    offsets[name].insert(offset);
    ++checked;
  }
  for (const L& l : layouts) {
    EXPECT_EQ(int64_t(offsets[name_of(l)].size()), l.rows * l.cols)
        << l.describe() << ": CuTe listed every element once, a bijection on the tile";
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace tilec
