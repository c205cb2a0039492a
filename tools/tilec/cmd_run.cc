// `tilec run FILE`: compiles a kernel file, runs every function on random
// inputs and, with --check, compares every tensor argument afterwards with the
// reference interpreter run on copies of the same inputs (exit 1 on mismatch).
#include "compile_options.h"

#include "tilec/interp/interpreter.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>

namespace tilec::cli {
namespace {

struct RunOptions : CompileOptions {
  std::vector<std::string> shapes;
  bool check = false;
  bool json = false;
  uint64_t seed = 0;
};

struct RunReport {
  std::string function;
  bool ok = true;
  bool checked = false;
  double max_abs_err = 0;
  double run_ms = 0;
  std::string first_mismatch;
};

std::map<std::string, int64_t> parse_values(const std::vector<std::string>& items) {
  std::map<std::string, int64_t> values;
  for (const auto& item : items) {
    auto [name, text] = ir::parse_define(item);
    size_t used = 0;
    int64_t value = 0;
    try {
      value = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size()) {
      throw EngineError(
          fmt::format("--shape {}: '{}' is not an integer; write NAME=VALUE, e.g. "
                      "--shape M=128",
                      item, text));
    }
    values[name] = value;
  }
  return values;
}

// The same arguments as `args`, but over fresh copies of the tensors.
std::vector<ir::ArgValue> rebind(const std::vector<ir::ArgValue>& args,
                                 const std::vector<ir::HostTensor>& tensors) {
  std::vector<ir::ArgValue> out;
  size_t next = 0;
  for (const auto& arg : args) {
    if (std::holds_alternative<ir::TensorView>(arg)) {
      out.push_back(tensors[next++].view());
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

RunReport run_function(const Kernel& kernel, const ir::PrimFunc& func,
                       const std::map<std::string, int64_t>& values, const RunOptions& options) {
  RunReport report;
  report.function = func->name;
  ir::RandomArgs inputs = ir::make_random_args(func, values, options.seed);
  std::vector<ir::HostTensor> expected_tensors = inputs.tensors;  // copies before the run
  std::vector<KernelArg> kernel_args(inputs.args.begin(), inputs.args.end());

  auto start = std::chrono::steady_clock::now();
  kernel.call(func->name, kernel_args);
  report.run_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!options.check) return report;

  report.checked = true;
  ir::interpret(func, rebind(inputs.args, expected_tensors));
  for (size_t i = 0; i < inputs.tensors.size(); ++i) {
    ir::CompareResult result =
        ir::compare_tensors(inputs.tensors[i].view(), expected_tensors[i].view());
    report.max_abs_err = std::max(report.max_abs_err, result.max_abs_err);
    if (!result.ok && report.ok) {
      report.ok = false;
      report.first_mismatch = result.first_mismatch;
    }
  }
  return report;
}

int run_run(const RunOptions& options) {
  std::map<std::string, int64_t> values = parse_values(options.shapes);
  auto [mod, kernel] = compile_kernel_file(options);

  bool all_ok = true;
  nlohmann::json reports = nlohmann::json::array();
  for (const auto& func : mod.functions()) {
    RunReport report = run_function(kernel, func, values, options);
    all_ok = all_ok && report.ok;
    if (options.json) {
      nlohmann::json entry = {{"function", report.function},
                              {"backend", kernel.context().name()},
                              {"target", kernel.context().target().str()},
                              {"execution_backend", kernel.execution_backend()},
                              {"ok", report.ok},
                              {"checked", report.checked},
                              {"max_abs_err", report.max_abs_err},
                              {"compile_ms", kernel.compile_ms()},
                              {"cache_hit", kernel.cache_hit()},
                              {"run_ms", report.run_ms}};
      if (!report.ok) entry["first_mismatch"] = report.first_mismatch;
      reports.push_back(entry);
      continue;
    }
    std::string verdict = !report.checked ? "ran" : report.ok ? "ok" : "MISMATCH";
    std::cout << fmt::format(
        "{}: {} (backend {}, target {}, execution backend {}, max_abs_err {:.3g}, compile "
        "{:.1f} ms{}, run {:.3f} ms){}\n",
        report.function, verdict, kernel.context().name(), kernel.context().target().str(),
        kernel.execution_backend(), report.max_abs_err, kernel.compile_ms(),
        kernel.cache_hit() ? " from cache" : "", report.run_ms,
        report.ok ? "" : "\n  first mismatch: " + report.first_mismatch);
  }
  if (options.json) std::cout << reports.dump(2) << "\n";
  return all_ok ? kExitOk : kExitFailure;
}

}  // namespace

TILEC_REGISTER_COMMAND(Command{
    "run",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<RunOptions>();
      add_compile_options(sub, *options);
      sub.add_option("--shape", options->shapes,
                     "value of a symbolic dimension or scalar parameter: NAME=VALUE");
      sub.add_flag("--check", options->check,
                   "compare every tensor with the reference interpreter (exit 1 on mismatch)");
      sub.add_flag("--json", options->json, "print one JSON object per kernel");
      sub.add_option("--seed", options->seed, "seed of the random inputs")->capture_default_str();
      return [options] { return run_run(*options); };
    },
    "compile a kernel file, run it on random inputs and optionally check it"});

}  // namespace tilec::cli
