#include "tilec/engine/tuning.h"

#include <algorithm>
#include <cctype>
#include <numeric>

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
      timings.push_back(
          do_bench([&] { kernel.call(func->name, args); }, bench, device_timer_of(kernel)));
    }
    // One call of each function: their samples add up.
    std::vector<double> total(size_t(bench.rep), 0.0);
    for (const auto& t : timings)
      for (size_t i = 0; i < total.size(); ++i) total[i] += t.samples_ms[i];
    result.timing = summarize_samples(std::move(total));
    // The functions' clock (all on one backend, so one timer; a mix is named as such).
    bool mixed = false;
    for (const auto& t : timings) mixed = mixed || t.clock != timings.front().clock;
    result.timing->clock = timings.empty() ? "host wall"
                           : mixed         ? "mixed device/host wall"
                                           : timings.front().clock;
  } catch (const std::exception& e) {
    result.status = "run error";
    result.error = first_line(e.what());
    result.timing.reset();
  }
  return result;
}

std::map<std::string, int64_t> small_check_sizes(const std::map<std::string, std::string>& config,
                                                 const std::map<std::string, int64_t>& sizes) {
  int64_t tile = 1;
  bool any = false;
  for (const auto& [name, value] : config) {
    std::string lower;
    for (char c : name) lower += char(std::tolower(static_cast<unsigned char>(c)));
    if (lower.rfind("block", 0) != 0 && lower.rfind("tile", 0) != 0) continue;
    char* end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || v <= 0) continue;
    tile = std::lcm(tile, int64_t(v));
    any = true;
    if (tile > (int64_t(1) << 30)) return {};  // no useful small problem
  }
  std::map<std::string, int64_t> out;
  if (!any) return out;
  for (const auto& [name, value] : sizes)
    if (value > 2 * tile && value % tile == 0) out[name] = 2 * tile;
  return out;
}

}  // namespace tilec
