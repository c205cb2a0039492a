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

// Prints the module before and/or after chosen passes (LLVM's -print-before,
// -print-after, -print-after-all). Passes are chosen by name as the pipeline lists
// them; `after_all` prints after every pass. Each dump starts with
// "// IR before|after <pipeline>/<pass>".
class PrintPassesInstrument : public PassInstrument {
 public:
  using Printer = PrintAfterPassInstrument::Printer;
  using Sink = PrintAfterPassInstrument::Sink;
  struct Selection {
    bool after_all = false;
    std::vector<std::string> after;   // pass names
    std::vector<std::string> before;  // pass names
  };

  // sink defaults to writing to stderr.
  PrintPassesInstrument(Printer printer, Selection selection, Sink sink = {});

  std::string name() const override { return "print_passes"; }
  void before_pass(std::string_view pipeline, const Pass& pass, const ir::IRModule& mod) override;
  void after_pass(std::string_view pipeline, const Pass& pass, const ir::IRModule& result) override;

 private:
  void dump(const char* when, std::string_view pipeline, const Pass& pass, const ir::IRModule& mod);
  Printer printer_;
  Selection selection_;
  Sink sink_;
  std::mutex mutex_;
};

// Records a lowering as a sequence of snapshots for tools that show every step
// (tilec trace): the module before the first pass, then after each pass with the
// pass's wall time. Printing runs outside the timed span.
class PassRecordInstrument : public PassInstrument {
 public:
  using Printer = PrintAfterPassInstrument::Printer;
  struct Step {
    std::string pipeline;
    std::string pass;     // "" for the input module
    double milliseconds;  // 0 for the input module
    std::string ir;       // the printed module after the pass
  };

  explicit PassRecordInstrument(Printer printer);
  std::string name() const override { return "pass_record"; }
  void before_pass(std::string_view pipeline, const Pass& pass, const ir::IRModule& mod) override;
  void after_pass(std::string_view pipeline, const Pass& pass, const ir::IRModule& result) override;
  std::vector<Step> steps() const;  // a copy, in run order

 private:
  Printer printer_;
  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point started_;
  std::vector<Step> steps_;
};

}  // namespace tilec::transform
