// T.copy between a tile with a unit dimension and an element subscript (docs/semantics.md
// "Tile operations"): the tile's whole shape lines up with the subscripted buffer's
// trailing dimensions, so a (4, 1) tile read from or written to A[i, j] is a column of
// four rows, on every runnable backend as in the interpreter. Before, the lowering
// dropped the unit dimension first and read a row (gemm with block_N = 1 computed
// wrong results; found by scripts/mutate_examples.py).
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/frontend/parser.h"

namespace tilec {
namespace {

constexpr const char* kColumns = R"(import tilelang.language as T


@T.prim_func
def columns(A: T.Tensor((8, 4), "float32"), C: T.Tensor((8, 4), "float32")):
    with T.Kernel(4, 2, threads=32) as (bx, by):
        S = T.alloc_fragment((4, 1), "float32")
        T.copy(A[by * 4, bx], S)
        T.copy(S, C[by * 4, bx])
)";

class CopyUnitDims : public testing::EngineTest,
                     public ::testing::WithParamInterface<testing::CpuBackend> {};

TEST_P(CopyUnitDims, AColumnTileCopiesAColumn) {
  TILEC_SKIP_UNLESS_RUNNABLE(GetParam());
  ir::IRModule mod = ir::parse_kernel_source(kColumns, {.filename = "columns.py", .defines = {}});
  TILEC_COMPILE_ON_OR_SKIP(kernel, mod, GetParam());
  testing::CheckResult r = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(r.ok) << r.detail;
}

INSTANTIATE_TEST_SUITE_P(Backends, CopyUnitDims, ::testing::ValuesIn(testing::runnable_backends()),
                         [](const ::testing::TestParamInfo<testing::CpuBackend>& info) {
                           return info.param.name();
                         });

}  // namespace
}  // namespace tilec
