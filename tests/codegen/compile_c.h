// Test helper: compiles generated C plus a main() with the system C compiler ($CC or
// cc) and runs it, so tests check what the printed C does, not only how it reads.
#pragma once

#include <string>

namespace tilec::codegen {

// Compiles `source` followed by `int main(void) { main_body }` and returns the
// program's stdout; a compile failure is a test failure (and returns "").
std::string compile_and_run(const std::string& source, const std::string& main_body,
                            const std::string& tag);

}  // namespace tilec::codegen
