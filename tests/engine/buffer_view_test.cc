// T.reshape(A, shape) and T.view(A, shape) in a kernel body (TileLang's
// tilelang/language/customize.py: a new buffer over A's data): element accesses go to A
// at the same row-major linear index. Checked against the meaning itself (the output is
// the input's data in order), then on every CPU backend pair against the interpreter.
#include "expect_source_error.h"
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/check.h"

namespace tilec {
namespace {

const char* kViews = R"(import tilelang
import tilelang.language as T


@tilelang.jit
def regroup(A):
    M, N = T.const("M, N")
    A: T.Tensor((M, N), "float32")
    C = T.empty((3, 8), "float32")
    with T.Kernel(1, threads=32) as bx:
        V = T.reshape(A, (3, 8))
        flat = T.view(C, (24,))
        for i, j in T.Parallel(3, 8):
            flat[i * 8 + j] = V[i, j] + 1.0
    return C
)";

// TileLang's older spelling of a view: a buffer declared over another's data pointer,
// which may also cover a prefix of it (`head`).
const char* kOverData = R"(import tilelang
import tilelang.language as T


@T.prim_func
def over_data(A: T.Tensor((4, 6), "float32"), C: T.Tensor((24,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        rows = T.Tensor((2, 12), "float32", A.data)
        head = T.Buffer((16,), "float32", data=A.data)
        out = T.decl_buffer((3, 8), "float32", data=C.data)
        for i, j in T.Parallel(3, 8):
            out[i, j] = rows[(i * 8 + j) // 12, (i * 8 + j) % 12] * 2.0 + head[(i * 8 + j) % 16]
)";

ir::IRModule parse_views(const std::map<std::string, std::string>& defines,
                         const char* source = kViews) {
  ir::ParseOptions options;
  options.filename = "views.py";
  options.defines = defines;
  ir::IRModule mod = ir::parse_kernel_source(source, options);
  ir::check_module_or_throw(mod, options.filename, source);
  return mod;
}

TEST(BufferViews, ReshapeKeepsTheRowMajorElementOrder) {
  ir::IRModule mod = parse_views({{"M", "4"}, {"N", "6"}});
  ir::RandomArgs args = ir::make_random_args(mod.functions()[0], {}, 3);
  std::vector<ir::ArgValue> values(args.args.begin(), args.args.end());
  ir::interpret(mod.functions()[0], values);
  ASSERT_EQ(args.tensors.size(), 2u);
  for (int64_t f = 0; f < 24; ++f)
    EXPECT_FLOAT_EQ(float(args.tensors[1].get(f)), float(args.tensors[0].get(f) + 1.0)) << f;
}

TEST(BufferViews, BuffersOverAnothersDataAreViews) {
  ir::IRModule mod = parse_views({}, kOverData);
  ir::RandomArgs args = ir::make_random_args(mod.functions()[0], {}, 5);
  std::vector<ir::ArgValue> values(args.args.begin(), args.args.end());
  ir::interpret(mod.functions()[0], values);
  for (int64_t f = 0; f < 24; ++f)
    EXPECT_FLOAT_EQ(float(args.tensors[1].get(f)),
                    float(args.tensors[0].get(f) * 2.0 + args.tensors[0].get(f % 16)))
        << f;
}

class BufferViewBackends : public testing::EngineTest,
                           public ::testing::WithParamInterface<testing::CpuBackend> {};

TEST_P(BufferViewBackends, MatchTheInterpreterSpecialisedAndSymbolic) {
  const testing::CpuBackend& backend = GetParam();
  TILEC_SKIP_UNLESS_BUILT(backend);
  ir::IRModule fixed = parse_views({{"M", "4"}, {"N", "6"}});
  Kernel k1 = compile(fixed, backend.target, std::nullopt, backend.execution_backend);
  auto r1 = testing::run_and_compare(k1, fixed.functions()[0]);
  EXPECT_TRUE(r1.ok) << r1.detail;
  ir::IRModule symbolic = parse_views({});
  Kernel k2 = compile(symbolic, backend.target, std::nullopt, backend.execution_backend);
  auto r2 = testing::run_and_compare(k2, symbolic.functions()[0], {{"M", 2}, {"N", 12}});
  EXPECT_TRUE(r2.ok) << r2.detail;
  ir::IRModule over_data = parse_views({}, kOverData);
  Kernel k3 = compile(over_data, backend.target, std::nullopt, backend.execution_backend);
  auto r3 = testing::run_and_compare(k3, over_data.functions()[0]);
  EXPECT_TRUE(r3.ok) << r3.detail;
}

INSTANTIATE_TEST_SUITE_P(TileLang, BufferViewBackends, ::testing::ValuesIn(testing::cpu_backends()),
                         [](const ::testing::TestParamInfo<testing::CpuBackend>& info) {
                           return info.param.name();
                         });

void expect_view_error(const std::string& body, const std::string& message,
                       const std::string& hint) {
  std::string source = std::string(R"(import tilelang
import tilelang.language as T


@T.prim_func
def f(A: T.Tensor((4, 6), "float32"), C: T.Tensor((24,), "float32")):
    with T.Kernel(1, threads=32) as bx:
)") + body;
  testing::expect_source_error(source, {}, message, hint);
}

TEST(BufferViews, MisuseIsAClearError) {
  expect_view_error("        V = T.reshape(A, (5, 5))\n        C[0] = V[0, 0]\n",
                    "to 25 elements: the buffer has 24", "product must be 24");
  expect_view_error("        V = T.view(A, (24,), \"int32\")\n        C[0] = 1.0\n",
                    "reinterprets the bits of 'A'", "T.cast");
  expect_view_error("        V = T.reshape(A, (2, 12))\n        C[0] = V[1]\n",
                    "view 'V' has 2 dimension(s); it is indexed with 1", "");
  // Tile ops take views (view_tile_ops_test.cc), with the op's own operand checks; a
  // reduction or gemm stages its view operands, which a whole global tensor cannot be.
  expect_view_error("        V = T.reshape(A, (24,))\n        T.copy(V[0:30], C)\n",
                    "T.copy from V[...] to C", "");
  expect_view_error(
      "        C_local = T.alloc_fragment((4,), \"float32\")\n"
      "        T.reduce_sum(T.reshape(A, (4, 6)), C_local, dim=1)\n",
      "does not take the view 'reshape(A)' of the global tensor 'A'", "T.copy the region you need");
  expect_view_error(
      "        S = T.alloc_shared((24,), \"float32\")\n"
      "        T.cumsum(T.reshape(S, (4, 6)), dim=1)\n",
      "T.cumsum does not take the view 'reshape(S)'", "scan that and T.copy it back");
  expect_view_error("        V = T.view(A, (24,))\n        T.finalize_reducer(V)\n",
                    "'V' is not a reducer", "T.alloc_reducer");
  expect_view_error("        V = T.Tensor((5, 5), \"float32\", A.data)\n        C[0] = V[0, 0]\n",
                    "to 25 elements: the buffer has 24", "may not reach past its 24 elements");
  expect_view_error(
      "        V = T.Tensor((2, 2), \"float32\", A.data, strides=(6, 1))\n        C[0] = V[0, 0]\n",
      "with strides or an offset is not supported", "row-major view");
  expect_view_error("        V = T.Tensor((24,), \"int32\", A.data)\n        C[0] = 1.0\n",
                    "reinterprets the bits of 'A'", "T.cast");
}

}  // namespace
}  // namespace tilec
