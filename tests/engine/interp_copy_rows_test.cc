// The interpreter's T.copy moves rows that are contiguous and in bounds on both sides
// as bytes, and the rest element by element: edge tiles (rows cut short, rows outside
// the source) must still read as zero and match every CPU backend, and a row of an
// allocation that nothing wrote is still reported.
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace tilec {
namespace {

// bx = 1 reads rows 4..7 of a 6-row A (two rows outside) and columns 3..10 of 10 (the
// last one outside); the shared tile then goes back to B shifted by one column.
constexpr const char* kEdgeRows = R"PY(import tilelang.language as T

@T.prim_func
def edge_rows(A: T.Tensor((6, 10), "float32"), B: T.Tensor((6, 10), "float32")):
    with T.Kernel(2, threads=1) as bx:
        S = T.alloc_shared((4, 8), "float32")
        T.copy(A[bx * 4, 3], S)
        T.copy(S, B[bx * 4, 1])
)PY";

class InterpCopyRows : public testing::EngineTest,
                       public ::testing::WithParamInterface<testing::CpuBackend> {};

TEST_P(InterpCopyRows, EdgeRowsMatchTheInterpreter) {
  const testing::CpuBackend& backend = GetParam();
  TILEC_SKIP_UNLESS_BUILT(backend);
  ir::IRModule mod = ir::parse_kernel_source(kEdgeRows);
  Kernel kernel = compile(mod, backend.target, std::nullopt, backend.execution_backend);
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

INSTANTIATE_TEST_SUITE_P(Interp, InterpCopyRows, ::testing::ValuesIn(testing::cpu_backends()),
                         [](const ::testing::TestParamInfo<testing::CpuBackend>& info) {
                           return info.param.name();
                         });

TEST(InterpCopyRowValues, TheValuesOfEdgeRows) {
  ir::IRModule mod = ir::parse_kernel_source(kEdgeRows);
  ir::HostTensor a(ir::DataType::Float32(), {6, 10}), b(ir::DataType::Float32(), {6, 10});
  for (int64_t i = 0; i < 60; ++i) {
    a.set(i, double(i));
    b.set(i, -1.0);
  }
  ir::interpret(mod.functions()[0], {a.view(), b.view()});
  // B[r, 1 + c] = A[r, 3 + c] for c < 8 where column 3 + c < 10, else 0.
  for (int64_t r = 0; r < 6; ++r) {
    EXPECT_EQ(b.get(r * 10), -1.0) << "column 0 is not written";
    EXPECT_EQ(b.get(r * 10 + 9), -1.0) << "column 9 is not written";
    for (int64_t c = 0; c < 8; ++c)
      EXPECT_EQ(b.get(r * 10 + 1 + c), 3 + c < 10 ? double(r * 10 + 3 + c) : 0.0) << r << "," << c;
  }
}

TEST(InterpCopyRowValues, ARowNothingWroteIsReported) {
  ir::IRModule mod = ir::parse_kernel_source(R"PY(import tilelang.language as T

@T.prim_func
def half_written(B: T.Tensor((4, 8), "float32")):
    with T.Kernel(1, threads=1) as bx:
        S = T.alloc_shared((4, 8), "float32")
        T.fill(S[0:2, 0:8], 1.0)
        T.copy(S, B)
)PY");
  ir::HostTensor b(ir::DataType::Float32(), {4, 8});
  try {
    ir::interpret(mod.functions()[0], {b.view()});
    FAIL() << "expected the uninitialized read to be reported";
  } catch (const ir::IRError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("read of 'S' at index [2, 0]"), std::string::npos) << what;
    EXPECT_NE(what.find("before anything wrote it"), std::string::npos) << what;
  }
}

// Rows wholly outside the source land in a tile of another dtype as its zero (written
// once and repeated along the row): S's rows 2..3 must be 0 in every dtype, rows 0..1
// A's values as that dtype holds them, and all of S written (copying it out reads it).
TEST(InterpCopyRowValues, RowsOutsideTheSourceAreZeroInTheTileDtype) {
  for (const char* dtype : {"float8_e4m3", "float8_e5m2", "float16", "bfloat16", "int8"}) {
    ir::IRModule mod = ir::parse_kernel_source(fmt::format(R"PY(import tilelang.language as T

@T.prim_func
def outside_rows(A: T.Tensor((2, 8), "float32"), B: T.Tensor((4, 8), "float32")):
    with T.Kernel(1, threads=1) as bx:
        S = T.alloc_shared((4, 8), "{}")
        T.copy(A[0, 0], S)
        T.copy(S, B)
)PY",
                                                           dtype));
    ir::HostTensor a(ir::DataType::Float32(), {2, 8}), b(ir::DataType::Float32(), {4, 8});
    for (int64_t i = 0; i < 16; ++i) a.set(i, double(i % 8) - 4.0);
    for (int64_t i = 0; i < 32; ++i) b.set(i, -1.0);
    ir::interpret(mod.functions()[0], {a.view(), b.view()});
    for (int64_t i = 0; i < 32; ++i)  // -4 .. 3 are exact in every one of these dtypes
      EXPECT_EQ(b.get(i), i < 16 ? double(i % 8) - 4.0 : 0.0) << dtype << " element " << i;
  }
}

// float16 and bfloat16 rows copied into float32 are widened as runs; rows holding an
// infinity or a NaN go element by element. Every 16-bit pattern must come out as the
// element-wise cast gives it.
TEST(InterpCopyRowValues, WidenedRowsMatchTheElementwiseCastForEveryBitPattern) {
  for (const char* dtype : {"float16", "bfloat16"}) {
    std::vector<uint32_t> outputs[2];
    const char* bodies[2] = {"T.copy(A, B)", R"(for i, j in T.grid(256, 256):
            B[i, j] = T.cast(A[i, j], "float32"))"};
    for (int form = 0; form < 2; ++form) {
      ir::IRModule mod = ir::parse_kernel_source(fmt::format(R"PY(import tilelang.language as T

@T.prim_func
def widen(A: T.Tensor((256, 256), "{}"), B: T.Tensor((256, 256), "float32")):
    with T.Kernel(1, threads=1) as bx:
        {}
)PY",
                                                             dtype, bodies[form]));
      ir::HostTensor a(*ir::DataType::parse(dtype), {256, 256}),
          b(ir::DataType::Float32(), {256, 256});
      auto* bits = static_cast<uint16_t*>(a.view().data);
      for (uint32_t i = 0; i < 65536; ++i) bits[i] = uint16_t(i);
      ir::interpret(mod.functions()[0], {a.view(), b.view()});
      const auto* out = static_cast<const uint32_t*>(b.view().data);
      outputs[form].assign(out, out + 65536);
    }
    EXPECT_EQ(outputs[0], outputs[1]) << dtype;
  }
}

// A point copy (one element each side) has no rows: none of the row paths may look at
// a row dimension (an earlier version indexed an empty dimension list here).
TEST(InterpCopyRowValues, APointCopyMovesOneElement) {
  ir::IRModule mod = ir::parse_kernel_source(R"PY(import tilelang.language as T

@T.prim_func
def point(A: T.Tensor((4,), "float16"), B: T.Tensor((2,), "float32")):
    with T.Kernel(1, threads=1) as bx:
        T.copy(A[3], B[1])
)PY");
  ir::HostTensor a(ir::DataType::Float16(), {4}), b(ir::DataType::Float32(), {2});
  for (int64_t i = 0; i < 4; ++i) a.set(i, double(i) + 0.5);
  b.set(0, -1.0);
  b.set(1, -1.0);
  ir::interpret(mod.functions()[0], {a.view(), b.view()});
  EXPECT_EQ(b.get(0), -1.0);
  EXPECT_EQ(b.get(1), 3.5);
}

}  // namespace
}  // namespace tilec
