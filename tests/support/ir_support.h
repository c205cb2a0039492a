// IR helpers the tests of several layers share (they were copied per test file):
// counting statements of a kind, and checking that a lowered module computes what the
// original does by running both through the interpreter.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/ir/stmt.h"

#include <cstdint>
#include <map>
#include <string>

namespace tilec::test {

// Statements of `kind` in `stmt` (post order, nested ones included).
int count_kind(const ir::Stmt& stmt, ir::StmtKind kind);

// Runs every function of `mod` and its namesake in `lowered` through the interpreter on
// the same random inputs (seed 11; `values` binds symbolic shapes) and expects every
// tensor to match (a gtest failure per mismatching tensor, naming it).
void expect_same_results(const ir::IRModule& mod, const ir::IRModule& lowered,
                         const std::map<std::string, int64_t>& values = {});

}  // namespace tilec::test
