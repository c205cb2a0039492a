// cpu/transpose_tile.h: the shuffle rounds transpose every square tile size the pass
// uses, and transpose_copies turns the gemm's transposing pack of a float32 B into
// register tiles plus the rows and columns left, leaving every other loop nest alone.
// What the tiles compute is checked end to end on every cpu backend
// (tests/engine/e2e_kernels_test.cc, GemmTransposedBInRegisterTiles).
#include "tilec/cpu/transpose_tile.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/lower_tile_ops.h"

#include <gtest/gtest.h>

namespace tilec::cpu {
namespace {

using namespace ir;

const target::Target kAvx512 = target::Target::parse("c -mcpu=skylake-avx512");

TEST(TransposeTile, ShuffleRoundsTransposeEverySize) {
  for (int64_t lanes : {2, 4, 8, 16}) {
    SCOPED_TRACE(lanes);
    // rows[r][c] holds the element's source position r * lanes + c.
    std::vector<std::vector<int>> rows(lanes, std::vector<int>(lanes));
    for (int64_t r = 0; r < lanes; ++r)
      for (int64_t c = 0; c < lanes; ++c) rows[r][c] = int(r * lanes + c);
    for (int64_t half = lanes / 2; half >= 1; half /= 2) {
      auto [first, second] = transpose_shuffle_masks(lanes, half);
      ASSERT_EQ(int64_t(first.size()), lanes);
      for (int64_t i = 0; i < lanes; ++i) {
        if (i & half) continue;
        std::vector<int> both = rows[i];
        both.insert(both.end(), rows[i + half].begin(), rows[i + half].end());
        for (int64_t c = 0; c < lanes; ++c) {
          rows[i][c] = both[first[c]];
          rows[i + half][c] = both[second[c]];
        }
      }
    }
    for (int64_t r = 0; r < lanes; ++r)
      for (int64_t c = 0; c < lanes; ++c) EXPECT_EQ(rows[r][c], int(c * lanes + r));
  }
  EXPECT_FALSE(is_transpose_tile_lanes(1));
  EXPECT_FALSE(is_transpose_tile_lanes(12));
  EXPECT_FALSE(is_transpose_tile_lanes(32));
}

struct Found {
  int64_t lanes = 0;                // of the last transpose_tile call
  int tiles = 0;                    // transpose_tile calls
  std::vector<int64_t> extents;     // constant trip counts of the loops around them
  int element_copies_to_panel = 0;  // stores into b_panel left
};

Found scan(const Stmt& body) {
  Found found;
  post_order_visit(body, [&](const Stmt* s, const Expr* e) {
    if (e) {
      if (auto* c = e->as<CallNode>(); c && as_transpose_tile(*c)) {
        ++found.tiles;
        found.lanes = as_transpose_tile(*c)->lanes;
      }
      return;
    }
    if (!s) return;
    if (auto* st = s->as<StoreNode>(); st && st->buffer->name == "b_panel")
      ++found.element_copies_to_panel;
    // The tile loops: a loop over rows of tiles around one over columns of tiles.
    auto* rows = s->as<ForNode>();
    auto* cols = rows ? rows->body.as<ForNode>() : nullptr;
    auto* ev = cols ? cols->body.as<EvaluateNode>() : nullptr;
    auto* call = ev ? ev->value.as<CallNode>() : nullptr;
    if (call && as_transpose_tile(*call)) {
      for (const ForNode* f : {rows, cols})
        if (const int64_t* n = as_const_int(f->end)) found.extents.push_back(*n);
    }
  });
  return found;
}

TEST(TransposeTile, TransposedPackBecomesRegisterTilesAndTheRest) {
  IRModule mod = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def nt(A: T.Tensor((24, 37), "float32"), B: T.Tensor((40, 37), "float32"), C: T.Tensor((24, 40), "float32")):
    with T.Kernel(1, threads=32) as bx:
        B_shared = T.alloc_shared((40, 37), "float32")
        T.copy(B, B_shared)
        T.gemm(A, B_shared, C, transpose_B=True, clear_accum=True)
@T.prim_func
def nn(A: T.Tensor((24, 37), "float32"), B: T.Tensor((37, 40), "float32"), C: T.Tensor((24, 40), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, clear_accum=True)
@T.prim_func
def half(A: T.Tensor((24, 37), "float16"), B: T.Tensor((40, 37), "float16"), C: T.Tensor((24, 40), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.gemm(A, B, C, transpose_B=True, clear_accum=True)
)");
  IRModule lowered = transform::lower_tile_ops(mod, kAvx512);
  // The transposing pack: k (37) x columns (40) -> 2 x 2 tiles, then the 5 rows below
  // them and the 8 columns right of them, still element copies.
  Found nt = scan(transpose_copies(lowered.lookup("nt")->body, 16));
  EXPECT_EQ(nt.tiles, 1);
  EXPECT_EQ(nt.lanes, 16);
  EXPECT_EQ(nt.extents, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(nt.element_copies_to_panel, 2);
  // No transposing copy (a plain B), a float16 source (converted while packed), or no
  // register tile of that size: nothing changes.
  for (const char* name : {"nn", "half"}) {
    const Stmt& body = lowered.lookup(name)->body;
    EXPECT_TRUE(transpose_copies(body, 16).same_as(body)) << name;
  }
  const Stmt& body = lowered.lookup("nt")->body;
  EXPECT_TRUE(transpose_copies(body, 1).same_as(body));
  Found eight = scan(transpose_copies(body, 8));
  EXPECT_EQ(eight.lanes, 8);
  EXPECT_EQ(eight.extents, (std::vector<int64_t>{4, 5}));
}

}  // namespace
}  // namespace tilec::cpu
