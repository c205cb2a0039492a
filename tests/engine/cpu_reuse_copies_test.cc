// cpu/reuse_invariant_copies.h through the whole pipeline on every cpu backend: the
// tiles of a K loop that do not depend on one block coordinate get a per-task cache
// (a `<tile>_reuse` allocation in the device function) and the results still match the
// interpreter, with a grid whose task boundaries (2 threads) fall inside a row of blocks;
// tiles whose region depends on every block coordinate, that the loop writes again
// after the copy, that the kernel reads after the loop or that the first store covers
// only in part get none; cpu.reuse_invariant_copies=false turns it off.
#include "runnable_backends.h"
#include "test_support.h"
#include "tilec/cpu/reuse_invariant_copies.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/visitor.h"

#include <gtest/gtest.h>

#include <set>

namespace tilec {
namespace {

using testing::CpuBackend;

// A 3 x 3 grid (9 blocks: on 2 threads the second task starts at block 4, in the middle
// of a row), edge tiles in M and N; `variant` picks what the K loop does around the
// copies.
std::string gemm_source(const std::string& b_copy, const std::string& after_copies,
                        const std::string& after_loop, const std::string& dtype = "float32",
                        bool transpose_b = false) {
  std::string b_shape = transpose_b ? "(72, 64)" : "(64, 72)";
  std::string b_tile = transpose_b ? "(32, 16)" : "(16, 32)";
  return R"(import tilelang.language as T


@T.prim_func
def mm(A: T.Tensor((80, 64), ")" +
         dtype + R"("), B: T.Tensor()" + b_shape + R"(, ")" + dtype +
         R"("), C: T.Tensor((80, 72), "float32")):
    with T.Kernel(T.ceildiv(72, 32), T.ceildiv(80, 32), threads=64) as (bx, by):
        A_shared = T.alloc_shared((32, 16), ")" +
         dtype + R"(")
        B_shared = T.alloc_shared()" +
         b_tile + R"(, ")" + dtype + R"(")
        C_local = T.alloc_fragment((32, 32), "float32")
        T.clear(C_local)
        for k in T.Pipelined(4, num_stages=2):
            T.copy(A[by * 32, k * 16], A_shared)
            )" +
         b_copy + "\n" + after_copies + R"(
            T.gemm(A_shared, B_shared, C_local)" +
         (transpose_b ? ", transpose_B=True)" : ")") + "\n" + after_loop + R"(
        T.copy(C_local, C[by * 32, bx * 32])
)";
}

const std::string kCopyB = "T.copy(B[k * 16, bx * 32], B_shared)";

// Names of the tiles the lowered device functions cache.
std::set<std::string> reused_tiles(const Kernel& kernel) {
  std::set<std::string> out;
  for (const auto& f : kernel.lowered().functions())
    ir::post_order_visit(f->body, [&](const ir::Stmt* s, const ir::Expr*) {
      auto* a = s ? s->as<ir::AllocateNode>() : nullptr;
      const std::string suffix = "_reuse";
      if (a && a->buffer->name.size() > suffix.size() &&
          a->buffer->name.compare(a->buffer->name.size() - suffix.size(), suffix.size(), suffix) ==
              0)
        out.insert(a->buffer->name.substr(0, a->buffer->name.size() - suffix.size()));
    });
  return out;
}

class ReuseInvariantCopies : public testing::EngineTest,
                             public ::testing::WithParamInterface<CpuBackend> {
 protected:
  void SetUp() override {
    TILEC_SKIP_UNLESS_BUILT(GetParam());
    EngineTest::SetUp();
  }
  // Compiles `source`, checks it against the interpreter and returns the cached tiles.
  std::set<std::string> check(const std::string& source, PassConfig config = {}) {
    ir::IRModule mod = ir::parse_kernel_source(source);
    Kernel kernel =
        compile(mod, GetParam().target, std::nullopt, GetParam().execution_backend, config);
    for (const auto& func : mod.functions()) {
      auto result = testing::run_and_compare(kernel, func);
      EXPECT_TRUE(result.ok) << result.detail;
    }
    return reused_tiles(kernel);
  }
};

TEST_P(ReuseInvariantCopies, GemmCachesOneOperandAndMatches) {
  // Both copies are invariant in one coordinate; on a tie the first grid dimension
  // (bx) is kept, so A's tile is cached.
  EXPECT_EQ(check(gemm_source(kCopyB, "", "")), (std::set<std::string>{"A_shared"}));
  // Transposed B: the copy and the gemm's transposing pack store more, so B's packed
  // panel is cached and by becomes the fastest coordinate.
  EXPECT_EQ(check(gemm_source("T.copy(B[bx * 32, k * 16], B_shared)", "", "", "float32", true)),
            (std::set<std::string>{"b_panel"}));
  // Float16 inputs: the gemm's float32 panel of A is cached, A_shared only feeds it.
  EXPECT_EQ(check(gemm_source(kCopyB, "", "", "float16")), (std::set<std::string>{"a_panel"}));
}

TEST_P(ReuseInvariantCopies, PassConfigKeyTurnsItOff) {
  EXPECT_TRUE(
      check(gemm_source(kCopyB, "", ""), {{cpu::kReuseInvariantCopiesConfigKey, false}}).empty());
}

TEST_P(ReuseInvariantCopies, RegionsThatDependOnEveryBlockCoordinateAreNotCached) {
  std::string source = gemm_source("T.copy(B[k * 16, (bx + by) % 3 * 32], B_shared)", "", "");
  // A's region still does not depend on bx.
  EXPECT_EQ(check(source), (std::set<std::string>{"A_shared"}));
  size_t at = source.find("T.copy(A[by * 32, k * 16]");
  ASSERT_NE(at, std::string::npos);
  source.replace(at, std::string("T.copy(A[by * 32, k * 16]").size(),
                 "T.copy(A[(by + bx) % 3 * 32, k * 16]");
  EXPECT_TRUE(check(source).empty());
}

TEST_P(ReuseInvariantCopies, TilesWrittenAgainAfterTheCopyAreNotCached) {
  // B_shared changes with by after its copy: B cannot be cached; A (invariant in bx) is.
  EXPECT_EQ(check(gemm_source(kCopyB,
                              "            for i, j in T.Parallel(16, 32):\n"
                              "                B_shared[i, j] = B_shared[i, j] + by",
                              "")),
            (std::set<std::string>{"A_shared"}));
  // A write that does not depend on by is part of B's invariant work, which now stores
  // more than A's copy: B_shared is cached.
  EXPECT_EQ(check(gemm_source(kCopyB,
                              "            for i, j in T.Parallel(16, 32):\n"
                              "                B_shared[i, j] = B_shared[i, j] * 2 + bx",
                              "")),
            (std::set<std::string>{"B_shared"}));
}

TEST_P(ReuseInvariantCopies, TilesReadAfterTheLoopOrPartlyWrittenAreNotCached) {
  // B_shared is read after the loop: its last copy has to be there in every block.
  EXPECT_EQ(check(gemm_source(kCopyB, "",
                              "        for i, j in T.Parallel(32, 32):\n"
                              "            C_local[i, j] = C_local[i, j] + B_shared[i % 16, j]")),
            (std::set<std::string>{"A_shared"}));
  // Copied at k == 0 only: the later iterations read what the first stored, which no
  // per-iteration cache holds.
  EXPECT_EQ(
      check(gemm_source("if k == 0:\n                T.copy(B[0, bx * 32], B_shared)", "", "")),
      (std::set<std::string>{"A_shared"}));
}

INSTANTIATE_TEST_SUITE_P(CpuBackends, ReuseInvariantCopies,
                         ::testing::ValuesIn(testing::cpu_backends()),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace tilec
