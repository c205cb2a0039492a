// run_process: runs a program (no shell) and captures its combined stdout and
// stderr, for invoking compilers. A program that cannot be started reports
// exit code 127 and says why in the output, as a shell would.
#pragma once

#include <string>
#include <vector>

namespace tilec::exec {

struct ProcessResult {
  int exit_code = 0;  // 127: could not be started; 128+N: killed by signal N
  std::string output;
};

// argv[0] is looked up on PATH. Throws std::invalid_argument for an empty argv.
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace tilec::exec
