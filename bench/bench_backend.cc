// create_backend_context with a few registered test manifests: the "auto"
// target through a ScopedTarget, an explicit target string, an explicit
// execution backend, and a kind shared by several backends (predicates decide).
#include "tilec/backend/module.h"
#include "tilec/target/detect.h"
#include "tilec/target/target_kind.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace tilec;

void ensure_kind(const std::string& name) {
  target::register_target_kind(
      {name,
       {{"variant", target::AttrType::kString, std::nullopt, "bench variant"}},
       {name},
       "bench kind"});
}

backend::BackendModule bench_manifest(const std::string& name, const std::string& kind,
                                      std::optional<backend::TargetPredicate> predicate) {
  ensure_kind(kind);
  auto emit = [](const ir::IRModule&, const target::Target& target) {
    return backend::CodeArtifact{"c", "// " + target.str(), {}, {}, {}};
  };
  return backend::BackendModule{
      .name = name,
      .target_kinds = {kind},
      .pipelines = {{kind, transform::PassPipeline(name + "_pipeline", {})}},
      .device_codegens = {{kind, {name + "_device", emit, emit}}},
      .execution_backends = {{"offline", [] { return false; }, std::nullopt, true, true},
                             {"native", [] { return true; }, std::nullopt, true, true},
                             {"source", [] { return true; }, std::nullopt, true, false}},
      .supports_target = std::move(predicate),
      .host_codegens = {{"c", {name + "_host", emit, std::nullopt}}},
  };
}

void register_bench_backends() {
  static const bool registered = [] {
    backend::register_backend(bench_manifest("bench_single", "bench_dev", std::nullopt));
    for (int i = 0; i < 4; ++i) {
      std::string variant = "v" + std::to_string(i);
      backend::register_backend(bench_manifest(
          "bench_shared_" + variant, "bench_shared",
          [variant](const target::Target& t) { return t.get_string("variant") == variant; }));
    }
    return true;
  }();
  (void)registered;
}

void BM_CreateContextAutoScopedTarget(benchmark::State& state) {
  register_bench_backends();
  target::ScopedTarget scope("bench_dev -variant=scoped");
  for (auto _ : state) benchmark::DoNotOptimize(backend::create_backend_context());
}
BENCHMARK(BM_CreateContextAutoScopedTarget);

void BM_CreateContextExplicitTarget(benchmark::State& state) {
  register_bench_backends();
  for (auto _ : state) {
    benchmark::DoNotOptimize(backend::create_backend_context("bench_dev -variant=explicit"));
  }
}
BENCHMARK(BM_CreateContextExplicitTarget);

void BM_CreateContextExplicitExecutionBackend(benchmark::State& state) {
  register_bench_backends();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        backend::create_backend_context("bench_dev", std::string("c"), "source"));
  }
}
BENCHMARK(BM_CreateContextExplicitExecutionBackend);

void BM_CreateContextSharedKindPredicates(benchmark::State& state) {
  register_bench_backends();
  for (auto _ : state) {
    benchmark::DoNotOptimize(backend::create_backend_context("bench_shared -variant=v3"));
  }
}
BENCHMARK(BM_CreateContextSharedKindPredicates);

void BM_CreateContextFromParsedTarget(benchmark::State& state) {
  register_bench_backends();
  auto target = target::Target::parse("bench_dev -variant=parsed");
  auto host = target::Target::parse("c");
  for (auto _ : state) benchmark::DoNotOptimize(backend::create_backend_context(target, host));
}
BENCHMARK(BM_CreateContextFromParsedTarget);

}  // namespace

BENCHMARK_MAIN();
