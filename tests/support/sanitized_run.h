// What the sanitized test run (scripts/test_asan.sh) leaves to the plain one. A test whose
// time is almost all an external toolchain compiling third-party code (NVRTC and ptxas on
// CUTLASS/CuTe headers: uninstrumented, so the sanitizers see none of it) skips there with
// this reason; the plain CTest run (scripts/test.sh) runs it, and one representative of each
// family still runs sanitized, so tilec's own side of that path (source generation, the
// nvrtc execution backend) keeps its sanitizer coverage. Skipped only where the process
// carries AddressSanitizer's runtime.
#pragma once

#include "tilec/exec/sanitizer_runtime.h"

#include <gtest/gtest.h>

#define TILEC_SKIP_TOOLCHAIN_BOUND_WHEN_SANITIZED(toolchain)                                 \
  do {                                                                                       \
    if (::tilec::exec::process_has_address_sanitizer())                                      \
      GTEST_SKIP() << "toolchain-bound (" << (toolchain)                                     \
                   << " takes nearly all its time, uninstrumented): the sanitized run "      \
                      "(scripts/test_asan.sh) leaves it to the plain CTest run, which runs " \
                      "it";                                                                  \
  } while (0)
