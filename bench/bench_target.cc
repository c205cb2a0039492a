// Target parsing costs: the text form, the JSON form (text and already-parsed object), the
// canonical str() round trip, hashing, and determine_target on an explicit spec. These run
// once per compile() call, so they should stay in the microsecond range.
#include "tilec/target/detect.h"
#include "tilec/target/target.h"

#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

namespace {

using tilec::target::Target;

constexpr const char* kSimple = "cuda -arch=sm_90";
constexpr const char* kFull =
    "cuda -arch=sm_90 -max_threads_per_block=512 -max_shared_memory_per_block=101376 "
    "-keys=cuda,gpu,cutedsl -host=\"llvm -mtriple=x86_64-linux-gnu -mcpu=znver4 "
    "-mattr=+avx2,+fma\"";
constexpr const char* kJson =
    R"({"kind": "cuda", "arch": "sm_90", "max_threads_per_block": 512,
        "keys": ["cuda", "gpu", "cutedsl"], "host": {"kind": "llvm", "mcpu": "znver4"}})";

void BM_ParseString(benchmark::State& state, const char* text) {
  for (auto _ : state) benchmark::DoNotOptimize(Target::parse(text));
}
BENCHMARK_CAPTURE(BM_ParseString, simple, kSimple);
BENCHMARK_CAPTURE(BM_ParseString, with_host, kFull);

void BM_ParseJsonText(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Target::parse(kJson));
}
BENCHMARK(BM_ParseJsonText);

void BM_FromJsonObject(benchmark::State& state) {
  nlohmann::json object = nlohmann::json::parse(kJson);
  for (auto _ : state) benchmark::DoNotOptimize(Target::from_json(object));
}
BENCHMARK(BM_FromJsonObject);

void BM_StrRoundTrip(benchmark::State& state) {
  Target target = Target::parse(kFull);
  for (auto _ : state) benchmark::DoNotOptimize(Target::parse(target.str()));
}
BENCHMARK(BM_StrRoundTrip);

void BM_Str(benchmark::State& state) {
  Target target = Target::parse(kFull);
  for (auto _ : state) benchmark::DoNotOptimize(target.str());
}
BENCHMARK(BM_Str);

void BM_ToJson(benchmark::State& state) {
  Target target = Target::parse(kFull);
  for (auto _ : state) benchmark::DoNotOptimize(target.to_json());
}
BENCHMARK(BM_ToJson);

void BM_Hash(benchmark::State& state) {
  Target target = Target::parse(kFull);
  for (auto _ : state) benchmark::DoNotOptimize(target.hash());
}
BENCHMARK(BM_Hash);

void BM_DetermineTargetExplicit(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(tilec::target::determine_target(kSimple));
}
BENCHMARK(BM_DetermineTargetExplicit);

}  // namespace

BENCHMARK_MAIN();
