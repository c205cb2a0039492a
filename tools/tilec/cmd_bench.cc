// `tilec bench FILE`: times every kernel function of the file with do_bench (warm-up,
// repeats, median and spread) on random inputs, on any execution backend, with the
// backend's device timer where it has one (the output names the clock); GFLOP/s and
// GB/s where the kernel states its work (kernel_work.h). `--compare T1,T2` compiles and
// times the same kernel for several targets in one process and prints each one's time
// relative to the first.
#include "compile_options.h"
#include "kernel_work.h"
#include "shape_values.h"

#include "tilec/engine/bench.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

namespace tilec::cli {
namespace {

struct BenchCommandOptions : CompileOptions {
  int warmup = 10;
  int rep = 50;
  bool json = false;
  std::vector<std::string> compare;
  std::string flops, bytes;
  uint64_t seed = 0;
};

struct Row {
  std::string function, target, execution_backend;
  BenchResult timing;
};

std::map<std::string, std::string> work_values(const BenchCommandOptions& options) {
  std::map<std::string, std::string> values;
  for (const auto& d : options.defines) values.insert(ir::parse_define(d));
  for (const auto& s : options.shapes) {
    auto eq = s.find('=');
    if (eq != std::string::npos) values[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return values;
}

int run_bench(const BenchCommandOptions& options) {
  ShapeValues values = parse_shape_values(options.shapes);
  KernelWork work =
      kernel_work(read_source(options.file), work_values(options), options.flops, options.bytes);
  std::vector<std::string> targets = options.compare;
  if (targets.empty()) targets.push_back(options.target);
  std::vector<Row> rows;
  for (const auto& target : targets) {
    CompileOptions one = options;
    one.target = target;
    // --compare: TARGET@BACKEND names the execution backend, else the target's "auto" one.
    if (!options.compare.empty()) {
      size_t at = target.rfind('@');
      one.target = target.substr(0, at);
      one.execution_backend = at == std::string::npos ? "auto" : target.substr(at + 1);
    }
    auto [mod, kernel] = compile_kernel_file(one);
    check_shape_names(mod, values, read_source(options.file));
    for (const auto& func : mod.functions()) {
      ir::RandomArgs inputs = random_args_with(func, values, values.integers, options.seed);
      std::vector<KernelArg> args(inputs.args.begin(), inputs.args.end());
      BenchResult timing =
          do_bench([&] { kernel.call(func->name, args); },
                   BenchOptions{options.warmup, options.rep}, device_timer_of(kernel));
      rows.push_back({func->name, kernel.context().target().str(), kernel.execution_backend(),
                      std::move(timing)});
    }
  }

  // Ratios: each row against the first target's row of the same function.
  auto baseline = [&](const Row& row) -> const Row* {
    for (const auto& r : rows)
      if (r.function == row.function) return &r;
    return nullptr;
  };
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : rows) {
    const BenchResult& t = row.timing;
    double seconds = t.median_ms / 1e3;
    nlohmann::json entry = {{"function", row.function},
                            {"target", row.target},
                            {"execution_backend", row.execution_backend},
                            {"warmup", options.warmup},
                            {"rep", options.rep},
                            {"median_ms", t.median_ms},
                            {"mean_ms", t.mean_ms},
                            {"min_ms", t.min_ms},
                            {"max_ms", t.max_ms},
                            {"p20_ms", t.p20_ms},
                            {"p80_ms", t.p80_ms},
                            {"spread", t.spread()},
                            {"clock", t.clock}};
    std::string rate;
    if (work.flops && seconds > 0) {
      entry["gflops"] = *work.flops / seconds / 1e9;
      rate += fmt::format("  {:.2f} GFLOP/s", *work.flops / seconds / 1e9);
    }
    if (work.bytes && seconds > 0) {
      entry["gbps"] = *work.bytes / seconds / 1e9;
      rate += fmt::format("  {:.2f} GB/s", *work.bytes / seconds / 1e9);
    }
    std::string ratio;
    if (targets.size() > 1) {
      const Row* base = baseline(row);
      double r = base && t.median_ms > 0 ? base->timing.median_ms / t.median_ms : 1.0;
      entry["speedup_vs_first"] = r;
      ratio = fmt::format("  x{:.2f} vs {}", r, base ? base->target : row.target);
    }
    out.push_back(entry);
    if (!options.json)
      std::cout << fmt::format(
          "{}  [{} / {}]  median {:.4f} ms  (min {:.4f}, max {:.4f}, p20-p80 {:.4f}-{:.4f}, "
          "±{:.1f}%; {} warm-up, {} reps; {} clock){}{}\n",
          row.function, row.target, row.execution_backend, t.median_ms, t.min_ms, t.max_ms,
          t.p20_ms, t.p80_ms, 100 * t.spread(), options.warmup, options.rep, t.clock, rate, ratio);
  }
  if (options.json) std::cout << out.dump(2) << "\n";
  return kExitOk;
}

}  // namespace

TILEC_REGISTER_COMMAND(Command{
    "bench",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<BenchCommandOptions>();
      add_compile_options(sub, *options);
      sub.add_option("--shape", options->shapes,
                     "value of a symbolic dimension or scalar parameter: NAME=VALUE (repeatable)");
      sub.add_option("--warmup", options->warmup, "untimed calls first")->capture_default_str();
      sub.add_option("--rep", options->rep, "timed calls; the median is reported")
          ->capture_default_str();
      sub.add_flag("--json", options->json,
                   "print a JSON array: function, target, execution_backend, warmup, rep, "
                   "median_ms, mean_ms, min_ms, max_ms, p20_ms, p80_ms, spread, clock (\"host "
                   "wall\" or \"device (...)\"), and gflops, "
                   "gbps, speedup_vs_first where known");
      sub.add_option("--compare", options->compare,
                     "time the kernel on each of these targets in one process: T1,T2,... "
                     "(ratios against the first); TARGET@BACKEND picks the execution backend, "
                     "e.g. \"cuda -arch=sm_80@emulator\"")
          ->delimiter(',');
      sub.add_option("--flops", options->flops,
                     "the kernel's floating-point operations, e.g. \"2*M*N*K\" (default: the "
                     "file's `# flops:` comment)");
      sub.add_option("--bytes", options->bytes,
                     "the bytes the kernel moves, e.g. \"3*N*4\" (default: the file's `# bytes:` "
                     "comment)");
      sub.add_option("--seed", options->seed, "seed of the random inputs")->capture_default_str();
      return [options] { return run_bench(*options); };
    },
    "time a kernel file (median and spread; GFLOP/s, GB/s; --compare targets)"});

}  // namespace tilec::cli
