// Atomic updates in block-level code (gpu/once_per_block.h): the SIMT lowering hands them
// to thread 0, since every thread of the block executes block-level code; a previous
// value every thread needs travels through a one-element shared tile, with barriers
// planned around it; in split nests and per-thread code atomics stay unguarded.
#include "simt_support.h"

namespace tilec {
namespace {

// The statements of `mod` that are atomic updates, and how many of them stand under a
// condition on the thread index `tid` == 0.
struct AtomicCount {
  int total = 0;
  int on_thread_zero = 0;
};

AtomicCount count_atomics(const ir::IRModule& mod) {
  AtomicCount n;
  std::function<void(const ir::Stmt&, bool)> walk = [&](const ir::Stmt& s, bool guarded) {
    if (!s) return;
    if (auto* e = s.as<ir::EvaluateNode>(); e && ir::as_atomic(e->value)) {
      ++n.total;
      n.on_thread_zero += guarded;
    } else if (auto* st = s.as<ir::StoreNode>()) {
      bool atomic = false;
      ir::post_order_visit(st->value,
                           [&](const ir::Expr& x) { atomic = atomic || ir::as_atomic(x); });
      if (atomic) {
        ++n.total;
        n.on_thread_zero += guarded;
      }
    } else if (auto* i = s.as<ir::IfNode>()) {
      bool zero = ir::print(i->cond).find(std::string(gpu::kThreadIndexName) + " == 0") !=
                  std::string::npos;
      walk(i->then_case, guarded || zero);
      walk(i->else_case, guarded);
    } else if (auto* q = s.as<ir::SeqNode>()) {
      for (const auto& c : q->stmts) walk(c, guarded);
    } else if (auto* f = s.as<ir::ForNode>()) {
      walk(f->body, guarded);
    } else if (auto* l = s.as<ir::LetNode>()) {
      walk(l->body, guarded);
    } else if (auto* a = s.as<ir::AllocateNode>()) {
      walk(a->body, guarded);
    } else if (auto* k = s.as<ir::KernelNode>()) {
      walk(k->body, guarded);
    }
  };
  walk(mod.functions().front()->body, false);
  return n;
}

TEST(BlockAtomics, BlockLevelVectorAddIsThreadZeros) {
  // TileLang's atomic_addx4_16bit_program: four atomic adds, each once per block.
  ir::IRModule mod = testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((16,), "float16"), B: T.Tensor((16,), "float16")):
    with T.Kernel(1, threads=64):
        T.atomic_addx4(B[4], A[4])
        T.atomic_max(B[0], A[0])
)PY");
  AtomicCount n = count_atomics(mod);
  EXPECT_EQ(n.total, 2) << ir::print(mod);  // the x4 is an unrolled loop over its lanes
  EXPECT_EQ(n.on_thread_zero, 2) << ir::print(mod);
}

TEST(BlockAtomics, PreviousValueIsSharedBehindABarrier) {
  ir::IRModule mod = testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((4,), "float32"), B: T.Tensor((4,), "float32"), P: T.Tensor((4, 32), "float32")):
    with T.Kernel(4, threads=32) as bx:
        prev = T.atomic_add(B[bx], A[bx], return_prev=True)
        for i in T.Parallel(32):
            P[bx, i] = prev * 2.0
)PY");
  std::string text = ir::print(mod);
  AtomicCount n = count_atomics(mod);
  EXPECT_EQ(n.total, 1) << text;
  EXPECT_EQ(n.on_thread_zero, 1) << text;
  EXPECT_NE(text.find("prev_once"), std::string::npos) << text;
  EXPECT_EQ(testing::count_barriers(mod.functions().front()->body), 1) << text;
  size_t write = text.find("prev_once[0] = T.atomic_add");
  size_t sync = text.find("tvm_storage_sync(\"shared\")");
  size_t read = text.find("= prev_once[0]");
  ASSERT_NE(write, std::string::npos) << text;
  EXPECT_LT(write, sync) << text;
  EXPECT_LT(sync, read) << text;
}

TEST(BlockAtomics, SplitNestsAndPerThreadCodeAreNotGuarded) {
  ir::IRModule mod = testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((16, 4), "float32"), B: T.Tensor((64,), "float32"), C: T.Tensor((1,), "float32")):
    with T.Kernel(1, threads=16):
        t = T.get_thread_binding()
        for i in T.Parallel(64):
            T.atomic_add(B[i], A[i // 4, i % 4])
        T.atomic_add(C[0], A[t, 0])
        T.atomic_add(C[0], A[0, 0])
)PY");
  AtomicCount n = count_atomics(mod);
  EXPECT_EQ(n.total, 3) << ir::print(mod);
  EXPECT_EQ(n.on_thread_zero, 0) << ir::print(mod);
}

TEST(BlockAtomics, AnAtomicInLoopBoundsIsALocatedError) {
  try {
    testing::lower_for_simt(R"PY(
import tilelang.language as T

@T.prim_func
def k(B: T.Tensor((4,), "int32")):
    with T.Kernel(1, threads=32):
        for i in T.serial(T.atomic_add(B[0], 1, return_prev=True)):
            B[1] = i
)PY");
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("bounds of a loop"), std::string::npos) << what;
    EXPECT_NE(what.find("line 7:"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tilec
