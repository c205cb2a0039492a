// transform::work_item_loops: per-thread code as loops over the block's threads, split at
// barriers and block-collective tile ops; thread-private storage live across a split gets
// one copy per thread; barriers under thread-dependent control flow are located errors.
#include "tilec/transform/work_item_loops.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/thread_binding.h"
#include "tilec/ir/visitor.h"

#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using namespace ir;

const char* kHeader =
    "import tilelang.language as T\n\n"
    "@T.prim_func\n"
    "def f(A: T.Tensor((64,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
    "    with T.Kernel(2, threads=32) as bx:\n"
    "        tx = T.get_thread_binding(0)\n";

PrimFunc parse_body(const std::string& body) {
  return parse_kernel_source(std::string(kHeader) + body).functions().at(0);
}

const KernelNode* kernel_of(const PrimFunc& f) {
  const KernelNode* k = nullptr;
  post_order_visit(f->body, [&](const Stmt* s, const Expr*) {
    if (s && s->as<KernelNode>()) k = s->as<KernelNode>();
  });
  return k;
}

// The loops over the threads at block level: serial loops named after the thread index
// whose extent is the kernel's thread count.
int phases(const Stmt& s) {
  if (!s) return 0;
  if (auto* q = s.as<SeqNode>()) {
    int n = 0;
    for (const auto& c : q->stmts) n += phases(c);
    return n;
  }
  if (auto* l = s.as<LetNode>()) return phases(l->body);
  if (auto* a = s.as<AllocateNode>()) return phases(a->body);
  if (auto* i = s.as<IfNode>()) return phases(i->then_case) + phases(i->else_case);
  if (auto* f = s.as<ForNode>()) {
    if (f->var.name() == "tx" && is_const_int(f->end, 32)) return 1;
    return phases(f->body);
  }
  return 0;
}

TEST(WorkItemLoops, KernelsWithoutThreadIndicesAreUnchanged) {
  PrimFunc f = parse_kernel_source(
                   "import tilelang.language as T\n\n"
                   "@T.prim_func\n"
                   "def f(A: T.Tensor((64,), \"float32\")):\n"
                   "    with T.Kernel(2, threads=32) as bx:\n"
                   "        A[bx] = 1.0\n"
                   "        T.sync_threads()\n")
                   .functions()
                   .at(0);
  EXPECT_EQ(work_item_loops(f), f);
}

TEST(WorkItemLoops, SplitsAtBarriersAndGivesLiveLocalsOneCopyPerThread) {
  PrimFunc f = parse_body(
      "        S = T.alloc_shared((32,), \"float32\")\n"
      "        acc = T.alloc_local((1,), \"float32\")\n"
      "        acc[0] = A[bx * 32 + tx]\n"
      "        S[tx] = acc[0]\n"
      "        T.sync_threads()\n"
      "        B[bx * 32 + tx] = S[31 - tx] + acc[0]\n");
  ASSERT_TRUE(thread_binding_of(*kernel_of(f)));
  PrimFunc g = work_item_loops(f);
  const KernelNode* k = kernel_of(g);
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(thread_binding_of(*k));
  EXPECT_EQ(phases(k->body), 2);
  bool barrier_in_a_phase = false, copies = false;
  post_order_visit(k->body, [&](const Stmt* s, const Expr* e) {
    if (auto* l = s ? s->as<ForNode>() : nullptr; l && l->var.name() == "tx") {
      post_order_visit(l->body, [&](const Stmt*, const Expr* x) {
        if (x && as_barrier(*x)) barrier_in_a_phase = true;
      });
    }
    if (auto* a = s ? s->as<AllocateNode>() : nullptr; a && a->buffer->name == "acc") {
      ASSERT_EQ(a->buffer->shape.size(), 2u);
      EXPECT_TRUE(is_const_int(a->buffer->shape[0], 32));
      copies = true;
    }
  });
  EXPECT_FALSE(barrier_in_a_phase);
  EXPECT_TRUE(copies);
}

TEST(WorkItemLoops, PerThreadCodeWithoutBarriersIsOnePhaseAndTileOpsStayPerBlock) {
  PrimFunc f = parse_body(
      "        S = T.alloc_shared((32,), \"float32\")\n"
      "        T.copy(A[bx * 32], S)\n"
      "        v = S[tx] * 2.0\n"
      "        S[tx] = v\n"
      "        T.copy(S, B[bx * 32])\n");
  PrimFunc g = work_item_loops(f);
  const KernelNode* k = kernel_of(g);
  EXPECT_EQ(phases(k->body), 1);
  int copies_in_phases = 0;
  post_order_visit(k->body, [&](const Stmt* s, const Expr*) {
    if (auto* l = s ? s->as<ForNode>() : nullptr; l && l->var.name() == "tx") {
      post_order_visit(l->body, [&](const Stmt* t, const Expr*) {
        if (t && t->as<CopyNode>()) ++copies_in_phases;
      });
    }
  });
  EXPECT_EQ(copies_in_phases, 0);
}

void expect_error(const std::string& body, const std::string& message) {
  PrimFunc f = parse_body(body);
  try {
    work_item_loops(f);
    ADD_FAILURE() << "no error for\n" << body;
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(WorkItemLoops, BarriersUnderThreadDependentControlFlowAreLocatedErrors) {
  expect_error(
      "        if tx < 16:\n"
      "            T.sync_threads()\n",
      "line 8:13: kernel 'f': a barrier (T.sync_threads / T.tvm_storage_sync) inside an if "
      "whose condition depends on the thread index (line 7)");
  expect_error(
      "        for i in T.serial(tx):\n"
      "            B[i] = 1.0\n"
      "            T.sync_threads()\n",
      "inside a loop whose bounds depend on the thread index (line 7)");
  expect_error(
      "        t = T.alloc_fragment((32,), \"float32\")\n"
      "        r = T.alloc_fragment((1,), \"float32\")\n"
      "        if A[tx] > 0.0:\n"
      "            T.reduce_sum(t, r, dim=0)\n",
      "T.reduce_sum (a block-wide tile operation) inside an if whose condition depends");
  expect_error(
      "        l = T.alloc_local((4,), \"float32\")\n"
      "        r = T.alloc_local((1,), \"float32\")\n"
      "        for i in T.serial(4):\n"
      "            l[i] = A[tx]\n"
      "        T.sync_threads()\n"
      "        T.reduce_sum(l, r, dim=0)\n",
      "T.reduce_sum on thread-private 'l', which lives across a barrier");
  expect_error(
      "        c = T.alloc_local((1,), \"int32\")\n"
      "        c[0] = tx\n"
      "        while c[0] < 32:\n"
      "            c[0] = c[0] + 1\n"
      "            T.sync_threads()\n",
      "line 11:13: kernel 'f': a barrier (T.sync_threads / T.tvm_storage_sync) inside a while "
      "loop whose condition depends on the thread index (line 9); every thread of the block "
      "must reach the same barriers and block-wide tile operations: move it out of that loop");
  expect_error(
      "        if tx < 16:\n"
      "            B[tx] = T.shfl_xor(A[tx], 1)\n",
      "line 8:21: kernel 'f': T.shfl_xor (a warp shuffle: every thread of the block takes part) "
      "inside an if whose condition depends on the thread index (line 7)");
}

}  // namespace
}  // namespace tilec::transform
