#include "tilec/engine/tuning.h"

#include <algorithm>

namespace tilec {
namespace {

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace

ConfigMeasurement measure_config(
    const ir::IRModule& mod, const Kernel& kernel, bool check, const BenchOptions& bench,
    const std::function<ir::RandomArgs(const ir::PrimFunc&)>& make_args) {
  ConfigMeasurement result;
  try {
    std::vector<BenchResult> timings;
    for (const auto& func : mod.functions()) {
      ir::RandomArgs inputs = make_args(func);
      std::vector<KernelArg> args(inputs.args.begin(), inputs.args.end());
      if (check) {
        // The interpreter runs on copies of the same inputs first (it checks every index).
        std::vector<ir::HostTensor> expected = inputs.tensors;
        std::vector<ir::ArgValue> reference;
        size_t t = 0;
        for (const auto& a : inputs.args)
          reference.push_back(
              std::holds_alternative<ir::TensorView>(a) ? ir::ArgValue(expected[t++].view()) : a);
        ir::interpret(func, reference);
        kernel.call(func->name, args);
        for (size_t i = 0; i < expected.size(); ++i) {
          ir::CompareResult r = ir::compare_tensors(inputs.tensors[i].view(), expected[i].view());
          result.max_abs_err = std::max(result.max_abs_err, r.max_abs_err);
          if (!r.ok && result.status == "ok") {
            result.status = "check failed";
            result.error = r.first_mismatch;
          }
        }
        if (result.status != "ok") return result;
      }
      timings.push_back(do_bench([&] { kernel.call(func->name, args); }, bench));
    }
    // One call of each function: their samples add up.
    std::vector<double> total(size_t(bench.rep), 0.0);
    for (const auto& t : timings)
      for (size_t i = 0; i < total.size(); ++i) total[i] += t.samples_ms[i];
    result.timing = summarize_samples(std::move(total));
  } catch (const std::exception& e) {
    result.status = "run error";
    result.error = first_line(e.what());
    result.timing.reset();
  }
  return result;
}

}  // namespace tilec
