// Helper for asserting that a call throws TargetError whose message contains every
// given fragment (tests of the target layer only).
#pragma once

#include "tilec/target/target_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace tilec::target::testing {

inline std::string target_error_message(const std::function<void()>& call) {
  try {
    call();
  } catch (const TargetError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a TargetError";
  return "";
}

#define EXPECT_TARGET_ERROR(call, ...)                                                     \
  do {                                                                                     \
    std::string message__ = ::tilec::target::testing::target_error_message([&] { call; }); \
    for (const char* fragment__ : {__VA_ARGS__}) {                                         \
      EXPECT_THAT(message__, ::testing::HasSubstr(fragment__));                            \
    }                                                                                      \
  } while (false)

}  // namespace tilec::target::testing
