// Progress on stderr, one implementation for every command that shows it (tune's compile
// and timing steps, run --check's and interp's reference interpreter): on a terminal a
// bar with done/total redrawn in place, otherwise plain lines, so a log stays readable.
#pragma once

#include "tilec/interp/interpreter.h"

#include <cstddef>
#include <functional>
#include <string>

namespace tilec::cli {

class ProgressBar {
 public:
  // `label` starts each line ("compiling", "checking 'gemm'"); `plain_prefix` starts each
  // plain line ("tilec: tune: ").
  ProgressBar(std::string label, std::string plain_prefix);
  ~ProgressBar();
  bool terminal() const { return tty_; }
  // Draws done of total with a detail: redrawn in place on a terminal (a newline once done
  // reaches total), a plain line otherwise.
  void draw(size_t done, size_t total, const std::string& detail);
  // Ends a bar left unfinished (a newline on a terminal once anything was drawn).
  void finish();

 private:
  std::string label_, prefix_;
  bool tty_;
  bool open_ = false;  // a bar is drawn without its newline
};

// Runs the reference interpreter on `func`; when it runs longer than a moment, shows the
// blocks done of the blocks launched so far (a bar on a terminal, a plain line every few
// seconds otherwise), labelled "<what> '<function>'".
void interpret_with_progress(const ir::PrimFunc& func, const std::vector<ir::ArgValue>& args,
                             const std::string& what);

}  // namespace tilec::cli
