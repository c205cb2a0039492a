// RuntimeError: everything that goes wrong while loading or calling a compiled
// kernel (bad library, ABI mismatch, a kernel rejecting its arguments). The
// message always says what was wrong and what to try.
#pragma once

#include <stdexcept>

namespace tilec::runtime {

struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace tilec::runtime
