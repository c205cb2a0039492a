// expect_source_error(source, defines, message, hint): parsing `source` fails with a
// located SourceError whose message contains `message` and whose hint contains `hint`
// (the error-path checks of the front-end construct tests).
#pragma once

#include "tilec/frontend/parser.h"
#include "tilec/ir/source_error.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace tilec::testing {

inline void expect_source_error(const std::string& source,
                                const std::map<std::string, std::string>& defines,
                                const std::string& message, const std::string& hint) {
  ir::ParseOptions options;
  options.filename = "bad.py";
  options.defines = defines;
  try {
    ir::parse_kernel_source(source, options);
    ADD_FAILURE() << "no error for:\n" << source;
  } catch (const ir::SourceError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find(hint), std::string::npos) << e.hint();
  }
}

}  // namespace tilec::testing
