// `tilec run FILE`: compiles a kernel file, runs every function on random
// inputs and, with --check, compares every tensor argument afterwards with the
// reference interpreter run first on copies of the same inputs (exit 1 on
// mismatch). Without --check nothing is compared and the report says so.
#include "compile_options.h"
#include "progress.h"
#include "shape_values.h"

#include "tilec/interp/interpreter.h"
#include "tilec/ir/npy.h"
#include "tilec/target/nearest_name.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

namespace tilec::cli {
namespace {

struct RunOptions : CompileOptions {
  std::vector<std::string> inputs;  // --inputs NAME=file.npy, unparsed
  std::string save_dir;
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

// --inputs NAME=FILE as parameter name -> tensor read from the .npy file.
std::map<std::string, ir::HostTensor> read_inputs(const std::vector<std::string>& items) {
  std::map<std::string, ir::HostTensor> inputs;
  for (const auto& item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw EngineError("--inputs " + item +
                        ": write NAME=FILE.npy, e.g. --inputs A=a.npy (NAME is a tensor "
                        "parameter of the kernel)");
    inputs.emplace(item.substr(0, eq), ir::read_npy(item.substr(eq + 1)));
  }
  return inputs;
}

// Every --inputs name must be a tensor parameter of some function.
void check_input_names(const ir::IRModule& mod,
                       const std::map<std::string, ir::HostTensor>& inputs) {
  std::vector<std::string> tensors;
  for (const auto& func : mod.functions())
    for (const auto& p : func->params)
      if (p.is_buffer()) tensors.push_back(p.name());
  for (const auto& [name, tensor] : inputs) {
    if (std::find(tensors.begin(), tensors.end(), name) == tensors.end())
      throw EngineError(fmt::format(
          "--inputs {}=...: the kernel has no tensor parameter '{}'{}; "
          "its tensor parameters: {}",
          name, name, target::did_you_mean(name, tensors), target::join_names(tensors)));
  }
}

// Symbolic dims not given with --shape are taken from the shapes of --inputs files.
std::map<std::string, int64_t> bind_dims_from_inputs(
    const ir::PrimFunc& func, std::map<std::string, int64_t> values,
    const std::map<std::string, ir::HostTensor>& inputs) {
  for (const auto& p : func->params) {
    auto it = p.is_buffer() ? inputs.find(p.name()) : inputs.end();
    if (it == inputs.end() || it->second.shape().size() != p.buffer->shape.size()) continue;
    for (size_t d = 0; d < p.buffer->shape.size(); ++d)
      if (auto* v = p.buffer->shape[d].as<ir::VarNode>())
        values.emplace(v->name, it->second.shape()[d]);
  }
  return values;
}

// Replaces the random tensors of parameters given with --inputs; dtype and shape must
// be the parameter's exactly (no silent conversion). NumPy has no float8, so a float8
// parameter takes a uint8 array of the same shape as its bit patterns (what --save writes).
void apply_inputs(const ir::PrimFunc& func, ir::RandomArgs& args,
                  const std::map<std::string, ir::HostTensor>& inputs) {
  size_t t = 0;
  for (const auto& p : func->params) {
    if (!p.is_buffer()) continue;
    ir::HostTensor& tensor = args.tensors[t++];
    auto it = inputs.find(p.name());
    if (it == inputs.end()) continue;
    const ir::HostTensor& given = it->second;
    bool float8_bits = tensor.dtype().is_float8() && given.dtype() == ir::DataType::UInt(8);
    if ((given.dtype() != tensor.dtype() && !float8_bits) || given.shape() != tensor.shape())
      throw EngineError(fmt::format(
          "--inputs {}: the file holds {}, but parameter '{}' of '{}' is {}; convert the "
          "array (numpy: a.astype(...).reshape(...)) or bind the dims with --shape",
          p.name(), given.view().str(), p.name(), func->name, tensor.view().str()));
    std::memcpy(tensor.data(), given.data(), tensor.view().nbytes());
  }
}

// Writes every tensor argument as DIR/<function>.<param>.npy.
void save_tensors(const ir::PrimFunc& func, const ir::RandomArgs& args, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw EngineError("--save " + dir + ": cannot create the directory: " + ec.message());
  size_t t = 0;
  for (const auto& p : func->params) {
    if (!p.is_buffer()) continue;
    auto path = std::filesystem::path(dir) / (func->name + "." + p.name() + ".npy");
    ir::write_npy(path.string(), args.tensors[t++].view());
  }
}

RunReport run_function(const Kernel& kernel, const ir::PrimFunc& func, const ShapeValues& values,
                       const RunOptions& options,
                       const std::map<std::string, ir::HostTensor>& given) {
  RunReport report;
  report.function = func->name;
  std::map<std::string, int64_t> dims = bind_dims_from_inputs(func, values.integers, given);
  check_argument_memory(func, dims, options.check ? 2 : 1);
  ir::RandomArgs inputs = random_args_with(func, values, dims, options.seed);
  apply_inputs(func, inputs, given);
  std::vector<ir::HostTensor> expected_tensors;
  if (options.check) {
    // The interpreter runs first: it checks every index, so out-of-range data is
    // reported as an error before compiled code touches memory with it.
    report.checked = true;
    expected_tensors = inputs.tensors;
    interpret_with_progress(func, rebind(inputs.args, expected_tensors), "checking");
  }
  std::vector<KernelArg> kernel_args(inputs.args.begin(), inputs.args.end());
  auto start = std::chrono::steady_clock::now();
  kernel.call(func->name, kernel_args);
  report.run_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!options.save_dir.empty()) save_tensors(func, inputs, options.save_dir);
  if (!options.check) return report;

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
  ShapeValues values = parse_shape_values(options.shapes);
  std::map<std::string, ir::HostTensor> given = read_inputs(options.inputs);
  auto [mod, kernel] = compile_kernel_file(options);
  check_shape_names(mod, values, read_source(options.file));
  check_input_names(mod, given);

  bool all_ok = true;
  nlohmann::json reports = nlohmann::json::array();
  for (const auto& func : mod.functions()) {
    RunReport report = run_function(kernel, func, values, options, given);
    all_ok = all_ok && report.ok;
    if (options.json) {
      nlohmann::json entry = {{"function", report.function},
                              {"backend", kernel.context().name()},
                              {"target", kernel.context().target().str()},
                              {"execution_backend", kernel.execution_backend()},
                              {"checked", report.checked},
                              {"compile_ms", kernel.compile_ms()},
                              {"cache_hit", kernel.cache_hit()},
                              {"run_ms", report.run_ms}};
      if (report.checked) {  // without --check nothing was compared: no verdict, no error
        entry["ok"] = report.ok;
        entry["max_abs_err"] = report.max_abs_err;
        if (!report.ok) entry["first_mismatch"] = report.first_mismatch;
      }
      reports.push_back(entry);
      continue;
    }
    std::string verdict = !report.checked ? "ran, not checked" : report.ok ? "ok" : "MISMATCH";
    std::string error =
        report.checked ? fmt::format("max_abs_err {:.3g}, ", report.max_abs_err) : "";
    std::cout << fmt::format(
        "{}: {} (backend {}, target {}, execution backend {}, {}compile {:.1f} ms{}, run {:.3f} "
        "ms){}\n",
        report.function, verdict, kernel.context().name(), kernel.context().target().str(),
        kernel.execution_backend(), error, kernel.compile_ms(),
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
                     "value of a symbolic dimension or scalar parameter: NAME=VALUE, an integer "
                     "(M=128) or, for a float scalar parameter, a number (alpha=1.5); "
                     "repeatable");
      sub.add_option("--inputs", options->inputs,
                     "run on your data: NAME=FILE.npy sets tensor parameter NAME from a NumPy "
                     ".npy file (dtype and shape must match; symbolic dims not given with "
                     "--shape are taken from it); repeatable");
      sub.add_option("--save", options->save_dir,
                     "write every tensor argument after the run to DIR/<function>.<param>.npy");
      sub.add_flag("--check", options->check,
                   "run the reference interpreter first (it reports out-of-range accesses), then "
                   "compare every tensor with it (exit 1 on mismatch)");
      sub.add_flag("--json", options->json,
                   "print a JSON array with one object per kernel function: function, backend, "
                   "target, execution_backend, checked, compile_ms, cache_hit, run_ms, and with "
                   "--check ok and max_abs_err");
      sub.add_option("--seed", options->seed, "seed of the random inputs")->capture_default_str();
      return [options] { return run_run(*options); };
    },
    "compile a kernel file, run it on random inputs and optionally check it"});

}  // namespace tilec::cli
