// The interpreter's T.gemm against the same product written as serial loops of scalar
// multiplies and adds in C's dtype (docs/semantics.md: each C element accumulates in
// ascending k, every operation rounded), bit for bit, over operand dtypes, transposes,
// accumulator dtypes and sizes that the machine-float kernel's 4-row and one-vector
// blocks do not divide; and its unwritten-element error, which must name the first
// unwritten element in the order the error has always used.
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace tilec::ir {
namespace {

struct GemmCase {
  const char* a_dtype;
  const char* b_dtype;
  const char* c_dtype;
  bool transpose_a, transpose_b, clear;
  int m, n, k;
};

void PrintTo(const GemmCase& c, std::ostream* os) {
  *os << c.a_dtype << " x " << c.b_dtype << " -> " << c.c_dtype << " M=" << c.m << " N=" << c.n
      << " K=" << c.k << (c.transpose_a ? " transpose_A" : "")
      << (c.transpose_b ? " transpose_B" : "") << (c.clear ? " clear_accum" : "");
}

// One kernel: C_f starts as C0 (or cleared), accumulates A.B, and is copied to C. `body`
// is either the T.gemm or the loops.
std::string kernel(const GemmCase& c, const std::string& body) {
  auto dims = [](bool transposed, int rows, int cols) {
    return transposed ? fmt::format("({}, {})", cols, rows) : fmt::format("({}, {})", rows, cols);
  };
  return fmt::format(R"(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor({a_shape}, "{a}"), B: T.Tensor({b_shape}, "{b}"),
       C0: T.Tensor(({m}, {n}), "{c}"), C: T.Tensor(({m}, {n}), "{c}")):
    with T.Kernel(1) as bx:
        C_f = T.alloc_fragment(({m}, {n}), "{c}")
        T.copy(C0, C_f)
{body}
        T.copy(C_f, C)
)",
                     fmt::arg("a_shape", dims(c.transpose_a, c.m, c.k)),
                     fmt::arg("b_shape", dims(c.transpose_b, c.k, c.n)), fmt::arg("a", c.a_dtype),
                     fmt::arg("b", c.b_dtype), fmt::arg("c", c.c_dtype), fmt::arg("m", c.m),
                     fmt::arg("n", c.n), fmt::arg("body", body));
}

std::string gemm_body(const GemmCase& c) {
  return fmt::format("        T.gemm(A, B, C_f, transpose_A={}, transpose_B={}, clear_accum={})",
                     c.transpose_a ? "True" : "False", c.transpose_b ? "True" : "False",
                     c.clear ? "True" : "False");
}

std::string loops_body(const GemmCase& c) {
  std::string a = c.transpose_a ? "A[p, i]" : "A[i, p]", b = c.transpose_b ? "B[j, p]" : "B[p, j]";
  return fmt::format(
      R"(        for i, j in T.grid({m}, {n}):
            {clear}
            for p in T.serial({k}):
                C_f[i, j] = C_f[i, j] + T.cast({a}, "{c}") * T.cast({b}, "{c}"))",
      fmt::arg("m", c.m), fmt::arg("n", c.n), fmt::arg("k", c.k),
      fmt::arg("clear", c.clear ? fmt::format("C_f[i, j] = T.cast(0, \"{}\")", c.c_dtype)
                                : std::string("pass")),
      fmt::arg("a", a), fmt::arg("b", b), fmt::arg("c", c.c_dtype));
}

RandomArgs run(const std::string& source) {
  IRModule module = parse_kernel_source(source);
  EXPECT_EQ(module.size(), 1u);
  PrimFunc func = module.functions()[0];
  RandomArgs args = make_random_args(func, {}, 7);
  interpret(func, args.args);
  return args;
}

class GemmAgainstLoops : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmAgainstLoops, IsBitIdentical) {
  const GemmCase& c = GetParam();
  RandomArgs by_gemm = run(kernel(c, gemm_body(c)));
  RandomArgs by_loops = run(kernel(c, loops_body(c)));
  const HostTensor &got = by_gemm.tensors[3], &want = by_loops.tensors[3];
  ASSERT_EQ(got.view().nbytes(), want.view().nbytes());
  EXPECT_EQ(std::memcmp(got.view().data, want.view().data, got.view().nbytes()), 0)
      << kernel(c, gemm_body(c));
}

INSTANTIATE_TEST_SUITE_P(
    DtypesTransposesAndSizes, GemmAgainstLoops,
    ::testing::Values(GemmCase{"float16", "float16", "float32", false, false, false, 37, 29, 19},
                      GemmCase{"float16", "float16", "float32", false, true, true, 64, 64, 64},
                      GemmCase{"bfloat16", "bfloat16", "float32", true, false, false, 5, 17, 33},
                      GemmCase{"float32", "float32", "float32", true, true, false, 3, 1, 7},
                      GemmCase{"float8_e4m3", "float8_e4m3", "float32", false, true, true, 20, 48,
                               40},
                      GemmCase{"float8_e5m2", "float16", "float32", false, false, false, 9, 33, 8},
                      GemmCase{"int8", "float32", "float32", false, false, false, 6, 18, 5},
                      GemmCase{"float64", "float32", "float32", true, false, false, 7, 9, 11},
                      GemmCase{"float32", "float64", "float64", false, true, false, 13, 10, 21},
                      GemmCase{"float16", "float16", "float64", false, false, true, 4, 8, 1},
                      GemmCase{"float16", "float16", "float16", false, false, false, 11, 13, 17},
                      GemmCase{"int8", "int8", "int32", false, true, false, 9, 5, 30}));

// A (256 x 256) holds every 16-bit pattern, row r the patterns r*256 .. r*256+255 (one
// exponent range per row, so a wrong conversion of any element changes its row's sum,
// subnormals included); C = A . ones sums each row. Rows with infinities or NaNs take the
// element-by-element path, the rest the vectorized widening: both must give the loops'
// bits.
TEST(Gemm, EverySixteenBitPatternOfAnOperandConvertsAsTheScalarPathDoes) {
  for (const char* dtype : {"float16", "bfloat16"}) {
    GemmCase c{dtype, dtype, "float32", false, false, true, 256, 1, 256};
    RandomArgs results[2];
    for (int form = 0; form < 2; ++form) {
      IRModule module = parse_kernel_source(kernel(c, form ? loops_body(c) : gemm_body(c)));
      PrimFunc func = module.functions()[0];
      results[form] = make_random_args(func, {}, 7);
      auto* a = static_cast<uint16_t*>(results[form].tensors[0].view().data);
      for (uint32_t bits = 0; bits < 65536; ++bits) a[bits] = uint16_t(bits);
      auto* b = static_cast<uint16_t*>(results[form].tensors[1].view().data);
      for (int k = 0; k < 256; ++k) b[k] = dtype[0] == 'f' ? 0x3C00 : 0x3F80;  // 1.0
      interpret(func, results[form].args);
    }
    const HostTensor &got = results[0].tensors[3], &want = results[1].tensors[3];
    EXPECT_EQ(std::memcmp(got.view().data, want.view().data, got.view().nbytes()), 0) << dtype;
  }
}

TEST(Gemm, AnUnwrittenOperandElementIsNamedInTheUsualOrder) {
  // B_s is 4x4 with [2, 1] and [1, 3] unwritten. The error names the first unwritten
  // element walking B by columns of C, then k: [2, 1] (walking by k, then columns, would
  // name [1, 3]).
  const std::string source = R"(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((4, 4), "float16"), C: T.Tensor((4, 4), "float32")):
    with T.Kernel(1) as bx:
        B_s = T.alloc_shared((4, 4), "float16")
        C_f = T.alloc_fragment((4, 4), "float32")
        for k, n in T.grid(4, 4):
            if not ((k == 2 and n == 1) or (k == 1 and n == 3)):
                B_s[k, n] = A[k, n]
        T.gemm(A, B_s, C_f, clear_accum=True)
        T.copy(C_f, C)
)";
  try {
    run(source);
    FAIL() << "expected an unwritten-read error";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("read of 'B_s' at index [2, 1]"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tilec::ir
