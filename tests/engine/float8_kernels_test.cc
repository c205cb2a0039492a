// float8 in compiled kernels: conversions float32/float16/bfloat16 -> float8_e4m3 and
// float8_e5m2 over a table of every float8 value, every midpoint between neighbours (and
// just off it), overflow, infinities and NaN, plus float8 arithmetic, on every CPU backend
// pair and OpenCL, compared bit for bit with the reference interpreter; and a float8
// dequantize-GEMM on e5m2 weights (the e4m3 one is examples/dequant_gemm_fp8.py).
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/exec/execution_backend.h"
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/check.h"
#include "tilec/ir/float8.h"

#include <cmath>
#include <cstring>

namespace tilec {
namespace {

constexpr int64_t kN = 2048;

const char* kConversions = R"(import tilelang.language as T

N = 2048

@T.prim_func
def conv(X: T.Tensor((N,), "float32"), H: T.Tensor((N,), "float16"),
         Bf: T.Tensor((N,), "bfloat16"), E4: T.Tensor((N,), "float8_e4m3"),
         E5: T.Tensor((N,), "float8_e5m2"), E4h: T.Tensor((N,), "float8_e4m3fn"),
         E5b: T.Tensor((N,), T.float8_e5m2), Back: T.Tensor((N,), "float32"),
         Ar: T.Tensor((N,), "float8_e4m3"), H5: T.Tensor((N,), "float16")):
    with T.Kernel(N // 64, threads=64) as bx:
        for i in T.Parallel(64):
            k = bx * 64 + i
            E4[k] = X[k]
            E5[k] = X[k]
            E4h[k] = H[k]
            E5b[k] = Bf[k]
            Back[k] = T.Cast("float32", E4[k]) + T.Cast("float32", E5[k])
            Ar[k] = E4[k] * E4[k] + E4[k]
            H5[k] = T.Cast("float16", E5[k])
)";

// Every value of both formats, the midpoints of neighbours and values just off them,
// saturation and special inputs; the rest random over a wide range.
std::vector<double> conversion_inputs() {
  std::vector<double> v;
  for (ir::DataType t : {ir::DataType::Float8E4M3(), ir::DataType::Float8E5M2()}) {
    for (int c = 0; c < 256; ++c) {
      double x = ir::float8_to_double(uint8_t(c), t);
      v.push_back(x);
      double y = ir::float8_to_double(uint8_t(c + 1), t);
      if ((c & 0x7F) != 0x7F && std::isfinite(x) && std::isfinite(y)) {
        double mid = (x + y) / 2, eps = std::fabs(y - x) / 64;
        v.insert(v.end(), {mid, mid - eps, mid + eps});
      }
    }
  }
  v.insert(v.end(), {449.0, 464.0, 480.0, 1e6, 57344.0, 61440.0, 65504.0, 1e30, INFINITY, -INFINITY,
                     NAN, -NAN, 1e-30, -1e-30, 0.0, -0.0});
  uint64_t state = 11;
  while (v.size() < size_t(kN)) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double u = double(state >> 11) * 0x1p-53;  // [0, 1)
    v.push_back((u - 0.5) * std::ldexp(1.0, int(state % 40) - 20));
  }
  v.resize(size_t(kN));
  return v;
}

bool same_bits_or_both_nan(const ir::HostTensor& a, const ir::HostTensor& b, int64_t i) {
  double x = a.get(i), y = b.get(i);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (a.dtype().is_narrow_float()) {
    size_t bytes = size_t(a.dtype().bytes());
    return std::memcmp(static_cast<char*>(a.data()) + i * bytes,
                       static_cast<char*>(b.data()) + i * bytes, bytes) == 0;
  }
  return x == y && std::signbit(x) == std::signbit(y);
}

class Float8Kernels : public testing::EngineTest,
                      public ::testing::WithParamInterface<testing::CpuBackend> {
 protected:
  void SetUp() override {
    TILEC_SKIP_UNLESS_RUNNABLE(GetParam());
    EngineTest::SetUp();
  }
};

TEST_P(Float8Kernels, ConversionsAndArithmeticMatchTheInterpreterBitForBit) {
  ir::IRModule mod =
      ir::parse_kernel_source(kConversions, {.filename = "float8_conv.py", .defines = {}});
  ir::check_module_or_throw(mod, "float8_conv.py", kConversions);
  const ir::PrimFunc& func = mod.functions()[0];
  std::vector<ir::HostTensor> compiled;
  for (const auto& p : func->params)
    compiled.emplace_back(p.buffer->dtype, std::vector<int64_t>{kN});
  std::vector<double> inputs = conversion_inputs();
  for (int64_t i = 0; i < kN; ++i) {
    for (int t = 0; t < 3; ++t) compiled[size_t(t)].set(i, inputs[size_t(i)]);
  }
  std::vector<ir::HostTensor> expected = compiled;
  std::vector<KernelArg> args;
  std::vector<ir::ArgValue> interp_args;
  for (size_t t = 0; t < compiled.size(); ++t) {
    args.push_back(compiled[t].view());
    interp_args.push_back(expected[t].view());
  }
  TILEC_COMPILE_ON_OR_SKIP(kernel, mod, GetParam());
  kernel.call(func->name, args);
  ir::interpret(func, interp_args);
  for (size_t t = 3; t < compiled.size(); ++t) {
    int mismatches = 0;
    for (int64_t i = 0; i < kN && mismatches < 5; ++i) {
      if (same_bits_or_both_nan(compiled[t], expected[t], i)) continue;
      ++mismatches;
      ADD_FAILURE() << func->params[t].name() << "[" << i << "] from input " << inputs[size_t(i)]
                    << ": compiled " << compiled[t].get(i) << ", interpreter "
                    << expected[t].get(i);
    }
  }
  // The rule itself on the compiled side: 464 (a tie above 448) and 1e6 saturate to 448,
  // infinity to 448, NaN is NaN.
  auto e4m3_of = [&](double x) {
    for (int64_t i = 0; i < kN; ++i)
      if (inputs[size_t(i)] == x) return compiled[3].get(i);
    return -1.0;
  };
  EXPECT_EQ(e4m3_of(464.0), 448.0);
  EXPECT_EQ(e4m3_of(1e6), 448.0);
  EXPECT_EQ(e4m3_of(-INFINITY), -448.0);
}

TEST_P(Float8Kernels, DequantGemmOnE5M2WeightsMatchesTheInterpreter) {
  std::string source = R"(import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def fp8_gemm(M=32, N=32, K=64, block=16, block_K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((N, K), "float8_e5m2"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=64) as (bx, by):
            A_s = T.alloc_shared((block, block_K), "float16")
            B_s = T.alloc_shared((block, block_K), "float8_e5m2")
            B_f = T.alloc_fragment((block, block_K), "float16")
            acc = T.alloc_fragment((block, block), "float32")
            T.clear(acc)
            for ko in T.Pipelined(K // block_K, num_stages=2):
                T.copy(A[by * block, ko * block_K], A_s)
                T.copy(B[bx * block, ko * block_K], B_s)
                for i, j in T.Parallel(block, block_K):
                    B_f[i, j] = B_s[i, j]
                T.gemm(A_s, B_f, acc, transpose_B=True)
            T.copy(acc, C[by * block, bx * block])
    return main
)";
  ir::IRModule mod = ir::parse_kernel_source(source, {.filename = "fp8_gemm.py", .defines = {}});
  ir::check_module_or_throw(mod, "fp8_gemm.py", source);
  Kernel kernel = testing::compile_on(mod, GetParam());
  auto result = testing::run_and_compare(kernel, mod.functions()[0]);
  EXPECT_TRUE(result.ok) << result.detail;
}

INSTANTIATE_TEST_SUITE_P(Backends, Float8Kernels, ::testing::ValuesIn(testing::runnable_backends()),
                         [](const ::testing::TestParamInfo<testing::CpuBackend>& info) {
                           return info.param.name();
                         });

TEST(Float8Front, AtomicsOnFloat8AreRejected) {
  std::string source = R"(import tilelang.language as T

@T.prim_func
def f(A: T.Tensor((4,), "float8_e4m3")):
    with T.Kernel(1) as bx:
        T.atomic_add(A[0], 1.0)
)";
  EXPECT_THROW(
      {
        ir::IRModule mod =
            ir::parse_kernel_source(source, {.filename = "atomic8.py", .defines = {}});
        ir::check_module_or_throw(mod, "atomic8.py", source);
      },
      std::exception);
}

}  // namespace
}  // namespace tilec
