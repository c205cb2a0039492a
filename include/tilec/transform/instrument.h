// Pass instruments observe a pipeline run from the PassContext: hooks before and
// after every pass (the LLVM -time-passes / -print-after-all idea). Instruments
// must tolerate being called from several threads lowering at once.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/transform/pass.h"

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace tilec::transform {

class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  virtual std::string name() const = 0;
  virtual void before_pass(std::string_view /*pipeline*/, const Pass& /*pass*/,
                           const ir::IRModule& /*mod*/) {}
  virtual void after_pass(std::string_view /*pipeline*/, const Pass& /*pass*/,
                          const ir::IRModule& /*result*/) {}
};

// Collects wall time per pass, in run order. A pass run several times (several
// lowerings) appears once per run.
class PassTimingInstrument : public PassInstrument {
 public:
  struct Entry {
    std::string pipeline;
    std::string pass;
    double milliseconds;
  };

  std::string name() const override { return "pass_timing"; }
  void before_pass(std::string_view pipeline, const Pass& pass, const ir::IRModule& mod) override;
  void after_pass(std::string_view pipeline, const Pass& pass, const ir::IRModule& result) override;

  std::vector<Entry> timings() const;  // a copy
  double total_milliseconds() const;
  std::string report() const;  // one "pipeline/pass  1.234 ms" line per entry, then the total

 private:
  mutable std::mutex mutex_;
  // Start times keyed by thread so concurrent lowerings do not mix up their passes.
  std::vector<std::pair<std::thread::id, std::chrono::steady_clock::time_point>> started_;
  std::vector<Entry> entries_;
};

// Prints the module after every pass. The printer is a parameter (the engine
// passes ir::print) so this layer needs no link dependency on the IR printer.
class PrintAfterPassInstrument : public PassInstrument {
 public:
  using Printer = std::function<std::string(const ir::IRModule&)>;
  using Sink = std::function<void(std::string_view text)>;

  // sink defaults to writing to stderr.
  explicit PrintAfterPassInstrument(Printer printer, Sink sink = {});

  std::string name() const override { return "print_after_pass"; }
  void after_pass(std::string_view pipeline, const Pass& pass, const ir::IRModule& result) override;

 private:
  Printer printer_;
  Sink sink_;
  std::mutex mutex_;  // keeps one pass's dump contiguous when threads lower at once
};

}  // namespace tilec::transform
