// The work a kernel states, for GFLOP/s and GB/s: a `# flops: EXPR` or `# bytes: EXPR`
// comment in the kernel file, or --flops/--bytes. EXPR is integer arithmetic (+ - * /
// // ** and parentheses) over numbers and names; a name takes its -D or --shape value,
// else the first `NAME = INTEGER` in the file (a module constant or a factory
// parameter's default).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace tilec::cli {

struct KernelWork {
  std::optional<double> flops;
  std::optional<double> bytes;
  std::string flops_text, bytes_text;  // the expressions, for the report
};

// `flops`/`bytes`: the option's expression ("" = from the file's comment). Throws
// EngineError naming an expression that does not evaluate (and the names known).
KernelWork kernel_work(const std::string& source, const std::map<std::string, std::string>& values,
                       const std::string& flops, const std::string& bytes);

// The arithmetic above (also % for the layouts tilec trace draws) of one expression;
// throws EngineError for a name without a value or bad syntax.
double evaluate_arithmetic(const std::string& text, const std::map<std::string, double>& names);

}  // namespace tilec::cli
