// Every math intrinsic (docs/semantics.md, "Math functions") in one kernel, run on every
// runnable backend and compared with the reference interpreter, in float32 and float64.
// Arguments are scaled into each function's domain from the random inputs' [-1, 1); round
// and nearbyint also get exact halves, where they differ (away from zero / to even). A
// backend that refuses a function by design (MSL has no erf, WGSL neither) must name it:
// the test drops each refused function and runs the rest, so every function a backend has
// is checked there.
#include "runnable_backends.h"
#include "test_support.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/check.h"
#include "tilec/ir/expr.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace tilec {
namespace {

struct MathCase {
  std::string function;    // the T. name
  std::string expression;  // of x, y (in [-1, 1)) and h (a half: -16, -15.5, ..., 15.5)
};

const std::vector<MathCase>& math_cases() {
  static const std::vector<MathCase> cases = {
      {"exp", "T.exp(x * 4)"},
      {"exp2", "T.exp2(x * 6)"},
      {"exp10", "T.exp10(x * 2)"},
      {"expm1", "T.expm1(x * 0.001)"},
      {"log", "T.log(x + 1.5)"},
      {"log2", "T.log2(x + 1.5)"},
      {"log10", "T.log10(x * 40 + 41)"},
      {"log1p", "T.log1p(x * 0.001)"},
      {"sqrt", "T.sqrt(x + 1)"},
      {"rsqrt", "T.rsqrt(x + 1.5)"},
      {"tanh", "T.tanh(x * 3)"},
      {"sigmoid", "T.sigmoid(x * 6)"},
      {"erf", "T.erf(x * 2)"},
      {"sin", "T.sin(x * 3)"},
      {"cos", "T.cos(x * 3)"},
      {"tan", "T.tan(x * 1.4)"},
      {"asin", "T.asin(x * 0.99)"},
      {"acos", "T.acos(x * 0.99)"},
      {"atan", "T.atan(x * 4)"},
      {"sinh", "T.sinh(x * 2)"},
      {"cosh", "T.cosh(x * 2)"},
      {"asinh", "T.asinh(x * 4)"},
      {"acosh", "T.acosh(x * 0.9 + 2)"},
      {"atanh", "T.atanh(x * 0.9)"},
      {"abs", "T.abs(x)"},
      {"floor", "T.floor(x * 5)"},
      {"ceil", "T.ceil(x * 5)"},
      {"trunc", "T.trunc(x * 5)"},
      {"round", "T.round(h) + T.round(x * 5)"},
      {"nearbyint", "T.nearbyint(h) + T.nearbyint(x * 5)"},
      {"pow", "T.pow(x + 1.5, y * 3)"},
      {"atan2", "T.atan2(y, x)"},
      {"fmod", "T.fmod(x * 10, y + 1.5) + T.fmod(h, -3.0)"},
      {"hypot", "T.hypot(x * 3, y * 4)"},
      {"copysign", "T.copysign(x, y)"},
      {"fma", "T.fma(x, y, 0.5)"},
      {"max", "T.max(x, y)"},
      {"min", "T.min(x, y)"},
  };
  return cases;
}

// The kernel computing `functions` of math_cases(), one output row each.
std::string math_kernel(const std::vector<MathCase>& functions, const std::string& dtype) {
  std::string rows;
  for (size_t f = 0; f < functions.size(); ++f)
    rows += fmt::format("            Out[{}, i] = {}\n", f, functions[f].expression);
  return fmt::format(R"(import tilelang.language as T

@T.prim_func
def math_functions(X: T.Tensor((64,), "{0}"), Y: T.Tensor((64,), "{0}"),
                   Out: T.Tensor(({1}, 64), "{0}")):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(64):
            x = X[i]
            y = Y[i]
            h = T.cast(i - 32, "{0}") * 0.5
{2})",
                     dtype, functions.size(), rows);
}

ir::IRModule parse(const std::string& source) {
  ir::ParseOptions options;
  options.filename = "math_functions.py";
  ir::IRModule mod = ir::parse_kernel_source(source, options);
  ir::check_module_or_throw(mod, options.filename, source);
  return mod;
}

TEST(MathFunctions, TheCasesCoverEveryIntrinsic) {
  std::set<std::string> tested;
  for (const auto& c : math_cases()) tested.insert(c.function);
  for (const auto& name : ir::math_intrinsic_names())
    EXPECT_TRUE(tested.count(name)) << "no case computes T." << name;
  EXPECT_EQ(tested.size(), ir::math_intrinsic_names().size());
}

using Param = std::tuple<std::string, testing::CpuBackend>;
class MathFunctions : public testing::EngineTest, public ::testing::WithParamInterface<Param> {};

TEST_P(MathFunctions, MatchTheInterpreter) {
  const auto& [dtype, backend] = GetParam();
  TILEC_SKIP_UNLESS_RUNNABLE(backend);
  std::vector<MathCase> functions = math_cases();
  std::vector<std::string> refused;
  for (;;) {
    ir::IRModule mod = parse(math_kernel(functions, dtype));
    std::optional<Kernel> kernel;
    std::string error;
    try {
      kernel.emplace(testing::compile_on(mod, backend));
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!kernel) {
      if (testing::refused_by_design(backend, error).empty()) FAIL() << error;
      // A refusal by design names the one function it refuses; the rest must still run.
      auto named = std::find_if(functions.begin(), functions.end(), [&](const MathCase& c) {
        return error.find("T." + c.function + " ") != std::string::npos ||
               error.find("T." + c.function + ",") != std::string::npos;
      });
      if (named == functions.end()) {
        GTEST_SKIP() << backend.name() << " refuses " << dtype << ": " << error;
      }
      refused.push_back(named->function);
      functions.erase(named);
      continue;
    }
    auto result = testing::run_and_compare(*kernel, mod.functions()[0]);
    EXPECT_TRUE(result.ok) << result.detail;
    break;
  }
  if (!refused.empty()) {
    std::string list;
    for (const auto& r : refused) list += " T." + r;
    std::cout << backend.name() << " refuses by design:" << list << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(AllIntrinsics, MathFunctions,
                         ::testing::Combine(::testing::Values("float32", "float64"),
                                            ::testing::ValuesIn(testing::runnable_backends())),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param).name();
                         });

}  // namespace
}  // namespace tilec
