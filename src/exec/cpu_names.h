// An -mcpu the chosen compiler does not know is one clear error before any build: the name,
// which compiler refused it, the nearest names it knows, and what to do (the C compiler's
// and LLVM's own lists of every CPU are long and printed once per source file, so they are
// never passed on raw). Used by the native backend (-march of $CC) and by LLVM code
// generation (the LLVM target's CPU table).
#pragma once

#include <string>
#include <vector>

namespace tilec::exec {

// Up to `limit` names of `known` nearest `cpu`: plausible typos first (znver4 -> znver3),
// then names of its family (those starting with its leading letters, "skylake").
std::vector<std::string> nearest_cpu_names(const std::string& cpu,
                                           const std::vector<std::string>& known, size_t limit = 6);

// The error text for an unknown CPU: `who` refused it ("the C compiler cc (gcc 12.2.0)"),
// `known` are the names it accepts (may be empty when it did not say), `instead` the advice.
std::string unknown_cpu_message(const std::string& cpu, const std::string& who,
                                const std::vector<std::string>& known, const std::string& instead);

// Throws ExecError unless the C compiler `compiler` (argv prefix, as $CC) accepts
// -march=`cpu`; asked once per compiler and name (preprocessing an empty file). A compiler
// that cannot be run is left to the build to report.
void require_known_march(const std::vector<std::string>& compiler, const std::string& cpu);

}  // namespace tilec::exec
