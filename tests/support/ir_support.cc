#include "ir_support.h"

#include "tilec/interp/interpreter.h"
#include "tilec/ir/visitor.h"

#include <gtest/gtest.h>

namespace tilec::test {

using namespace ir;

int count_kind(const Stmt& stmt, StmtKind kind) {
  int n = 0;
  post_order_visit(stmt, [&](const Stmt* node, const Expr*) {
    if (node && node->kind() == kind) ++n;
  });
  return n;
}

void expect_same_results(const IRModule& mod, const IRModule& lowered,
                         const std::map<std::string, int64_t>& values) {
  for (const auto& f : mod.functions()) {
    RandomArgs expected = make_random_args(f, values, 11);
    RandomArgs actual = make_random_args(lowered.lookup(f->name), values, 11);
    interpret(f, expected.args);
    interpret(lowered.lookup(f->name), actual.args);
    for (size_t t = 0; t < expected.tensors.size(); ++t) {
      CompareResult r = compare_tensors(actual.tensors[t].view(), expected.tensors[t].view());
      EXPECT_TRUE(r.ok) << f->name << " tensor #" << t << ": " << r.first_mismatch;
    }
  }
}

}  // namespace tilec::test
