#include "tilec/transform/instrument.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace tilec::transform {

void PassTimingInstrument::before_pass(std::string_view /*pipeline*/, const Pass& /*pass*/,
                                       const ir::IRModule& /*mod*/) {
  std::lock_guard lock(mutex_);
  started_.emplace_back(std::this_thread::get_id(), std::chrono::steady_clock::now());
}

void PassTimingInstrument::after_pass(std::string_view pipeline, const Pass& pass,
                                      const ir::IRModule& /*result*/) {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  auto self = std::this_thread::get_id();
  // The latest start on this thread belongs to this pass (passes do not nest).
  auto it = std::find_if(started_.rbegin(), started_.rend(),
                         [&](const auto& entry) { return entry.first == self; });
  if (it == started_.rend()) return;
  double ms = std::chrono::duration<double, std::milli>(now - it->second).count();
  started_.erase(std::next(it).base());
  entries_.push_back({std::string(pipeline), pass.name, ms});
}

std::vector<PassTimingInstrument::Entry> PassTimingInstrument::timings() const {
  std::lock_guard lock(mutex_);
  return entries_;
}

double PassTimingInstrument::total_milliseconds() const {
  std::lock_guard lock(mutex_);
  double total = 0;
  for (const auto& entry : entries_) total += entry.milliseconds;
  return total;
}

std::string PassTimingInstrument::report() const {
  auto entries = timings();
  std::string text;
  double total = 0;
  char line[64];
  for (const auto& entry : entries) {
    std::snprintf(line, sizeof(line), "%10.3f ms  ", entry.milliseconds);
    text += line + entry.pipeline + "/" + entry.pass + "\n";
    total += entry.milliseconds;
  }
  std::snprintf(line, sizeof(line), "%10.3f ms  total\n", total);
  return text + line;
}

PrintAfterPassInstrument::PrintAfterPassInstrument(Printer printer, Sink sink)
    : printer_(std::move(printer)), sink_(std::move(sink)) {
  if (!printer_) throw PassError("PrintAfterPassInstrument needs a printer function");
  if (!sink_) sink_ = [](std::string_view text) { std::cerr << text; };
}

void PrintAfterPassInstrument::after_pass(std::string_view pipeline, const Pass& pass,
                                          const ir::IRModule& result) {
  std::string text =
      "// IR after " + std::string(pipeline) + "/" + pass.name + "\n" + printer_(result) + "\n";
  std::lock_guard lock(mutex_);
  sink_(text);
}

PrintPassesInstrument::PrintPassesInstrument(Printer printer, Selection selection, Sink sink)
    : printer_(std::move(printer)), selection_(std::move(selection)), sink_(std::move(sink)) {
  if (!printer_) throw PassError("PrintPassesInstrument needs a printer function");
  if (!sink_) sink_ = [](std::string_view text) { std::cerr << text; };
}

namespace {
bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}
}  // namespace

void PrintPassesInstrument::dump(const char* when, std::string_view pipeline, const Pass& pass,
                                 const ir::IRModule& mod) {
  std::string text = "// IR " + std::string(when) + " " + std::string(pipeline) + "/" + pass.name +
                     "\n" + printer_(mod) + "\n";
  std::lock_guard lock(mutex_);
  sink_(text);
}

void PrintPassesInstrument::before_pass(std::string_view pipeline, const Pass& pass,
                                        const ir::IRModule& mod) {
  if (listed(selection_.before, pass.name)) dump("before", pipeline, pass, mod);
}

void PrintPassesInstrument::after_pass(std::string_view pipeline, const Pass& pass,
                                       const ir::IRModule& result) {
  if (selection_.after_all || listed(selection_.after, pass.name))
    dump("after", pipeline, pass, result);
}

PassRecordInstrument::PassRecordInstrument(Printer printer) : printer_(std::move(printer)) {
  if (!printer_) throw PassError("PassRecordInstrument needs a printer function");
}

void PassRecordInstrument::before_pass(std::string_view pipeline, const Pass& /*pass*/,
                                       const ir::IRModule& mod) {
  std::lock_guard lock(mutex_);
  if (steps_.empty()) steps_.push_back({std::string(pipeline), "", 0.0, printer_(mod)});
  started_ = std::chrono::steady_clock::now();
}

void PassRecordInstrument::after_pass(std::string_view pipeline, const Pass& pass,
                                      const ir::IRModule& result) {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  double ms = std::chrono::duration<double, std::milli>(now - started_).count();
  steps_.push_back({std::string(pipeline), pass.name, ms, printer_(result)});
}

std::vector<PassRecordInstrument::Step> PassRecordInstrument::steps() const {
  std::lock_guard lock(mutex_);
  return steps_;
}

}  // namespace tilec::transform
