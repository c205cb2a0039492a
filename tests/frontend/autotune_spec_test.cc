// Autotune configs read from kernel source as TileLang writes them (issue 36): a literal
// list on @autotune, a function building them with itertools.product and a
// comprehension, dict(zip(...)), AutoTuner.from_kernel(...) with the enclosing factory's
// parameters from -D, and the located errors for configs that are not a list of dicts.
#include "tilec/frontend/autotune.h"
#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

namespace tilec::ir {
namespace {

std::optional<AutotuneSpec> spec_of(const std::string& body,
                                    std::map<std::string, std::string> defines = {},
                                    std::string entry = "") {
  ParseOptions options;
  options.filename = "k.py";
  options.defines = std::move(defines);
  return find_autotune_spec(
      "import itertools\nimport tilelang\nimport tilelang.language as T\n"
      "from tilelang.autotuner import autotune, AutoTuner\n" +
          body,
      options, entry);
}

const char* kKernel = R"(
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=threads) as bx:
            for i in T.Parallel(block):
                A[bx * block + i] = 0.0

    return main
)";

TEST(AutotuneSpec, LiteralConfigsOnTheDecorator) {
  auto spec = spec_of(std::string(R"(
@autotune(configs=[{"block": 16, "threads": 32}, {"block": 32, "threads": 64}], warmup=5, rep=7)
@tilelang.jit(out_idx=[-1])
def f(N=64, block=16, threads=32):)") +
                      kKernel);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->function, "f");
  ASSERT_EQ(spec->configs.size(), 2u);
  EXPECT_EQ(spec->configs[1].at("block"), "32");
  EXPECT_EQ(spec->configs[1].at("threads"), "64");
  EXPECT_EQ(spec->warmup, 5);
  EXPECT_EQ(spec->rep, 7);
}

TEST(AutotuneSpec, AFunctionWithProductAndAComprehension) {
  auto spec = spec_of(std::string(R"(
def get_configs():
    params = dict(block=[16, 32], threads=[32, 64], fast=[True])
    return [dict(zip(params, v)) for v in itertools.product(params["block"], params["threads"], params["fast"]) if v[0] <= v[1] // 2 or v[1] == 64]

@autotune(configs=get_configs(), warmup=1, rep=1)
def f(N=64, block=16, threads=32, fast=False):)") +
                      kKernel);
  ASSERT_TRUE(spec);
  // product order (16,32) (16,64) (32,32) (32,64); the filter drops (32, 32).
  ASSERT_EQ(spec->configs.size(), 3u);
  EXPECT_EQ(spec->configs[0], (std::map<std::string, std::string>{
                                  {"block", "16"}, {"threads", "32"}, {"fast", "True"}}));
  EXPECT_EQ(spec->configs[2].at("block"), "32");
  EXPECT_EQ(spec->configs[2].at("threads"), "64");
}

TEST(AutotuneSpec, ACallableConfigsGetsTheFactoryParametersItNames) {
  auto spec = spec_of(std::string(R"(
def configs_for(N):
    out = []
    for b in [8, 16, 32, 64, 128]:
        if b <= N:
            out.append({"block": b})
    return out

@autotune(configs=configs_for)
def f(N=32, block=16, threads=32):)") +
                          kKernel,
                      {{"N", "16"}});
  ASSERT_TRUE(spec);
  ASSERT_EQ(spec->configs.size(), 2u);
  EXPECT_EQ(spec->configs[0].at("block"), "8");
  EXPECT_EQ(spec->configs[1].at("block"), "16");
}

TEST(AutotuneSpec, AutoTunerFromKernelInsideAFactory) {
  std::string source = R"(
def get_configs(M):
    return [{"block": b, "threads": 32} for b in [16, 32, 64] if b <= M]

def best(M=64):
    def kernel(block=None, threads=None):
        N = M

        @T.prim_func
        def main(A: T.Tensor((N,), "float32")):
            with T.Kernel(T.ceildiv(N, block), threads=threads) as bx:
                for i in T.Parallel(block):
                    A[bx * block + i] = 0.0

        return main

    autotuner = AutoTuner.from_kernel(kernel=kernel, configs=get_configs(M)).set_compile_args(out_idx=[-1])
    return autotuner.run(warmup=2, rep=4)
)";
  auto spec = spec_of(source, {{"M", "32"}});
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->function, "kernel");
  // What `tilec tune` compiles each config as, in a file that defines several entries
  // (TileLang's example_gemm_autotune.py).
  EXPECT_EQ(spec->entry, "best");
  EXPECT_EQ(spec->sizes, (std::map<std::string, int64_t>{{"M", 32}})) << "the factory's, by -D";
  ASSERT_EQ(spec->configs.size(), 2u);
  EXPECT_EQ(spec->warmup, 2);
  EXPECT_EQ(spec->rep, 4);
  // The factory compiles for a config given with -D (the autotuner's choice).
  ParseOptions options;
  options.filename = "k.py";
  options.defines = {{"M", "32"}, {"block", "16"}, {"threads", "32"}};
  IRModule mod = parse_kernel_source(
      "import tilelang\nimport tilelang.language as T\nfrom tilelang.autotuner import AutoTuner\n" +
          source,
      options);
  EXPECT_EQ(mod.size(), 1u);
}

// TileLang's examples unpack: itertools.product(*params.values()), dict(**base, k=v), a
// helper taking *args / **kwargs, and [*a, *b] displays (issue 36).
TEST(AutotuneSpec, StarArgsAndKeywordUnpacking) {
  auto spec = spec_of(std::string(R"(
def merged(*dicts, **extra):
    out = {}
    for d in dicts:
        out = dict(out, **d)
    return dict(out, **extra)

def get_configs():
    iter_params = dict(block=[16, 32], threads=[32, 64])
    keys = [*iter_params.keys()]
    combos = [dict(zip(keys, values)) for values in itertools.product(*iter_params.values())]
    return [merged(c, {"fast": True}, **{"threads": c["threads"] * 2}) for c in combos if c["block"] == 16]

@autotune(configs=get_configs())
def f(N=64, block=16, threads=32, fast=False):)") +
                      kKernel);
  ASSERT_TRUE(spec);
  ASSERT_EQ(spec->configs.size(), 2u) << "product of 2 x 2, filtered to block=16";
  EXPECT_EQ(spec->configs[0].at("block"), "16");
  EXPECT_EQ(spec->configs[0].at("threads"), "64");
  EXPECT_EQ(spec->configs[1].at("threads"), "128");
  EXPECT_EQ(spec->configs[1].at("fast"), "True");
  // The problem size is the one integer parameter no config sets.
  EXPECT_EQ(spec->sizes, (std::map<std::string, int64_t>{{"N", 64}}));
}

TEST(AutotuneSpec, AStarParameterInAKernelIsRefusedWithWhy) {
  ParseOptions options;
  options.filename = "k.py";
  try {
    parse_kernel_source(std::string("import tilelang\nimport tilelang.language as T\n"
                                    "@tilelang.jit\ndef f(*sizes, N=64, block=16, threads=32):") +
                            kKernel,
                        options);
    FAIL() << "a *sizes parameter of a kernel factory was accepted";
  } catch (const SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("'*sizes' parameters are not supported"),
              std::string::npos)
        << e.what();
  }
}

TEST(AutotuneSpec, NoneWithoutAutotuneAndErrorsForBadConfigs) {
  EXPECT_FALSE(spec_of(std::string("def f(N=64, block=16, threads=32):") + kKernel));
  try {
    spec_of(std::string("@autotune(configs=[16, 32])\ndef f(N=64, block=16, threads=32):") +
            kKernel);
    FAIL() << "a list of ints was accepted";
  } catch (const SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("an autotune config is a int, not a dict"),
              std::string::npos)
        << e.what();
  }
  try {
    spec_of(std::string("@autotune(configs=undefined_configs())\ndef f(N=64, block=16, "
                        "threads=32):") +
            kKernel);
    FAIL() << "an undefined name was accepted";
  } catch (const SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("name 'undefined_configs' is not defined"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tilec::ir
