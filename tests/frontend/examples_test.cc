// The example kernels parse into the structure their comments promise.
#include "build_paths.h"
#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

namespace tilec::ir {
namespace {

IRModule example(const std::string& name, std::map<std::string, std::string> defines = {}) {
  return parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/" + name, std::move(defines));
}

// Every statement of a body in pre-order, scoped nodes included.
std::vector<Stmt> all_stmts(const Stmt& root) {
  std::vector<Stmt> out, stack{root};
  while (!stack.empty()) {
    Stmt s = stack.back();
    stack.pop_back();
    if (!s) continue;
    out.push_back(s);
    if (auto* q = s.as<SeqNode>()) stack.insert(stack.end(), q->stmts.rbegin(), q->stmts.rend());
    if (auto* a = s.as<AllocateNode>()) stack.push_back(a->body);
    if (auto* l = s.as<LetNode>()) stack.push_back(l->body);
    if (auto* f = s.as<ForNode>()) stack.push_back(f->body);
    if (auto* k = s.as<KernelNode>()) stack.push_back(k->body);
    if (auto* i = s.as<IfNode>()) {
      stack.push_back(i->else_case);
      stack.push_back(i->then_case);
    }
  }
  return out;
}

TEST(Examples, GemmIsCanonicalTiledForm) {
  IRModule m = example("gemm.py");
  const PrimFunc& f = m.lookup("gemm");
  EXPECT_EQ(f->params[0].buffer->dtype, DataType::Float16());
  int copies = 0, gemms = 0;
  const ForNode* pipelined = nullptr;
  const AllocateNode* accumulator = nullptr;
  for (const Stmt& s : all_stmts(f->body)) {
    copies += s.as<CopyNode>() != nullptr;
    gemms += s.as<GemmNode>() != nullptr;
    if (auto* loop = s.as<ForNode>(); loop && loop->for_kind == ForKind::kPipelined)
      pipelined = loop;
    if (auto* a = s.as<AllocateNode>(); a && a->buffer->scope == StorageScope::kFragment)
      accumulator = a;
  }
  EXPECT_EQ(copies, 3);
  EXPECT_EQ(gemms, 1);
  ASSERT_NE(pipelined, nullptr);
  EXPECT_EQ(pipelined->num_stages, 3);
  EXPECT_TRUE(is_const_int(pipelined->end, 8));
  ASSERT_NE(accumulator, nullptr);
  EXPECT_EQ(accumulator->buffer->dtype, DataType::Float32());
}

TEST(Examples, DefinesGrowTheProblem) {
  IRModule m = example("gemm_fp32.py", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}});
  const PrimFunc& f = m.lookup("gemm_fp32");
  EXPECT_TRUE(is_const_int(f->params[0].buffer->shape[0], 1024));
  auto* kernel = f->body.as<KernelNode>();
  ASSERT_NE(kernel, nullptr);
  EXPECT_TRUE(is_const_int(kernel->grid[0], 16));
}

TEST(Examples, EdgeTilesDoNotDivideTheTensor) {
  PrimFunc f = example("edge_tiles.py").functions().at(0);
  EXPECT_TRUE(is_const_int(f->params[0].buffer->shape[0], 100));
  EXPECT_TRUE(is_const_int(f->params[0].buffer->shape[1], 70));
  auto* kernel = f->body.as<KernelNode>();
  EXPECT_TRUE(is_const_int(kernel->grid[0], 3));
  EXPECT_TRUE(is_const_int(kernel->grid[1], 4));
}

TEST(Examples, ReductionsAndFusedElementwise) {
  int reduces = 0;
  for (const Stmt& s : all_stmts(example("softmax.py").functions().at(0)->body))
    reduces += s.as<ReduceNode>() != nullptr;
  EXPECT_EQ(reduces, 2);
  PrimFunc gelu = example("bias_gelu.py").functions().at(0);
  EXPECT_TRUE(gelu->params[0].buffer->read_only);
  EXPECT_FALSE(gelu->params[2].buffer->read_only);
  PrimFunc sum = example("reduce_sum.py").functions().at(0);
  EXPECT_EQ(sum->params[1].buffer->ndim(), 1);
  EXPECT_EQ(example("vector_add.py").functions().at(0)->name, "vector_add");
}

}  // namespace
}  // namespace tilec::ir
