// The tensor-core gemm checked without a GPU: the lowered T.gemm (its ldmatrix row
// addresses, register offsets and the accumulator's layout) is executed for every thread of
// a block in lockstep by a host-side model of the two warp-collective instructions, written
// from the PTX ISA's definitions and independent of the lowering:
// - ldmatrix.sync.aligned.m8n8.{x2,x4}{.trans}.shared.b16: lanes 8j..8j+7 give the row
//   addresses of matrix j; lane l receives, in its register j, row l/4, elements 2(l%4) and
//   2(l%4)+1 of matrix j (Figure "ldmatrix fragment layout for one 8x8 Matrix with 16-bit
//   elements"), or, with .trans, column l/4, rows 2(l%4) and 2(l%4)+1;
// - mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: lane l (groupID g = l >> 2,
//   threadID_in_group t = l % 4) holds A elements a0..a7 at row g (a0, a1, a4, a5) or g + 8,
//   column 2t + (i & 1) (+ 8 for a4..a7); B elements b0..b3 at row 2t + (i & 1) (+ 8 for b2,
//   b3), column g; C/D elements c0..c3 at row g (c0, c1) or g + 8, column 2t + (i & 1)
//   ("Matrix Fragments for mma.m16n8k16 with floating point type").
// The block's accumulator registers, read through the fragment's layout, must equal a
// reference gemm (small integers: exact in float16, bfloat16 and float32).
#include "tilec/cuda/mma_gemm.h"
#include "tilec/frontend/parser.h"
#include "tilec/gpu/simt_context.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/visitor.h"
#include "tilec/target/target.h"
#include "tilec/transform/simplify.h"
#include "tilec/transform/tile_op_impl.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace tilec {
namespace {

using namespace ir;

// One .b32 register of an mma operand: two 16-bit elements, low half first.
struct Pair {
  double lo = 0, hi = 0;
};

class BlockSimulator {
 public:
  BlockSimulator(int64_t threads, Var tid) : threads_(threads), env_(size_t(threads)) {
    for (int64_t t = 0; t < threads; ++t) env_[size_t(t)][tid.get()] = make_int(t);
  }

  // A 2-D shared tile, row-major.
  void set_shared(const Buffer& b, std::vector<double> values) {
    shared_[b.get()] = {b, std::move(values)};
  }
  // A thread's float registers (the accumulator).
  std::vector<double>& floats(const Buffer& b, int64_t thread) {
    auto& per_thread = floats_[b.get()];
    if (per_thread.empty()) per_thread.resize(size_t(threads_));
    auto& regs = per_thread[size_t(thread)];
    if (regs.empty()) regs.resize(size_t(size_of(b)));
    return regs;
  }
  int executed_ldmatrix = 0, executed_mma = 0;

  void run(const Stmt& s) {
    switch (s.kind()) {
      case StmtKind::kSeq:
        for (const auto& x : s.as<SeqNode>()->stmts) run(x);
        return;
      case StmtKind::kLet: {
        auto* op = s.as<LetNode>();
        for (int64_t t = 0; t < threads_; ++t)
          env_[size_t(t)][op->var.get()] = make_int(eval(op->value, t));
        run(op->body);
        return;
      }
      case StmtKind::kFor: {
        auto* op = s.as<ForNode>();
        int64_t begin = uniform(op->begin), end = uniform(op->end);
        for (int64_t i = begin; i < end; i += op->step) {
          for (auto& e : env_) e[op->var.get()] = make_int(i);
          run(op->body);
        }
        return;
      }
      case StmtKind::kAllocate: {
        auto* op = s.as<AllocateNode>();
        pairs_[op->buffer.get()].assign(size_t(threads_),
                                        std::vector<Pair>(size_t(size_of(op->buffer))));
        run(op->body);
        return;
      }
      case StmtKind::kStore: {
        auto* op = s.as<StoreNode>();
        for (int64_t t = 0; t < threads_; ++t) {
          Expr v = transform::simplify(op->value);
          auto* f = v.as<FloatImmNode>();
          ASSERT_NE(f, nullptr) << "only constant stores are modelled: " << print(s);
          floats(op->buffer, t)[size_t(eval(op->indices[0], t))] = f->value;
        }
        return;
      }
      case StmtKind::kEvaluate: {
        auto* call = s.as<EvaluateNode>()->value.as<CallNode>();
        ASSERT_NE(call, nullptr) << print(s);
        for (int64_t w = 0; w < threads_ / 32; ++w) warp_call(*call, w);
        return;
      }
      default:
        FAIL() << "statement not modelled: " << print(s);
    }
  }

 private:
  static int64_t size_of(const Buffer& b) {
    int64_t n = 1;
    for (const auto& d : b->shape) n *= *as_const_int(d);
    return n;
  }

  int64_t eval(const Expr& e, int64_t thread) {
    Expr v = transform::simplify(substitute(e, env_[size_t(thread)]));
    const int64_t* c = as_const_int(v);
    if (!c) ADD_FAILURE() << "not a constant: " << print(e) << " -> " << print(v);
    return c ? *c : 0;
  }

  int64_t uniform(const Expr& e) {
    int64_t v = eval(e, 0);
    for (int64_t t = 1; t < threads_; ++t) EXPECT_EQ(eval(e, t), v) << "non-uniform " << print(e);
    return v;
  }

  // The (row, column) a lane's load argument addresses in a 2-D shared tile.
  std::pair<int64_t, int64_t> address(const LoadNode* load, int64_t thread) {
    return {eval(load->indices[0], thread), eval(load->indices[1], thread)};
  }

  double shared_at(const Buffer& b, int64_t row, int64_t col) {
    auto& [buffer, values] = shared_.at(b.get());
    int64_t cols = *as_const_int(buffer->shape[1]);
    EXPECT_TRUE(col >= 0 && col < cols && row >= 0 && row * cols + col < int64_t(values.size()))
        << b->name << "[" << row << ", " << col << "] is outside the tile";
    return values[size_t(row * cols + col)];
  }

  void warp_call(const CallNode& call, int64_t warp) {
    const std::string& name = call.name;
    if (name.rfind("tilec_ldmatrix_", 0) == 0) return ldmatrix(call, warp);
    if (name.rfind("tilec_mma_m16n8k16_", 0) == 0) return mma(call, warp);
    FAIL() << "call not modelled: " << name;
  }

  void ldmatrix(const CallNode& call, int64_t warp) {
    ++executed_ldmatrix;
    const std::string& name = call.name;
    int matrices = name.find("_x4") != std::string::npos ? 4 : 2;
    bool trans = name.find("_trans") != std::string::npos;
    auto* dst = call.args[0].as<LoadNode>();
    auto* src = call.args[1].as<LoadNode>();
    ASSERT_TRUE(dst && src);
    for (int j = 0; j < matrices; ++j) {
      // Lanes 8j .. 8j+7 give matrix j's row addresses.
      std::pair<int64_t, int64_t> rows[8];
      for (int r = 0; r < 8; ++r) rows[r] = address(src, warp * 32 + 8 * j + r);
      auto element = [&](int r, int c) {
        return shared_at(src->buffer, rows[r].first, rows[r].second + c);
      };
      for (int lane = 0; lane < 32; ++lane) {
        int64_t t = warp * 32 + lane;
        Pair p;
        if (!trans) {
          p = {element(lane / 4, 2 * (lane % 4)), element(lane / 4, 2 * (lane % 4) + 1)};
        } else {
          p = {element(2 * (lane % 4), lane / 4), element(2 * (lane % 4) + 1, lane / 4)};
        }
        pairs_.at(dst->buffer.get())[size_t(t)][size_t(eval(dst->indices[0], t) + j)] = p;
      }
    }
  }

  void mma(const CallNode& call, int64_t warp) {
    ++executed_mma;
    auto* c = call.args[0].as<LoadNode>();
    auto* a = call.args[1].as<LoadNode>();
    auto* b = call.args[2].as<LoadNode>();
    ASSERT_TRUE(a && b && c);
    double A[16][16], B[16][8], C[16][8];
    int seen_a[16][16] = {}, seen_b[16][8] = {}, seen_c[16][8] = {};
    for (int lane = 0; lane < 32; ++lane) {
      int64_t t = warp * 32 + lane;
      int g = lane >> 2, tig = lane % 4;
      const auto& ar = pairs_.at(a->buffer.get())[size_t(t)];
      const auto& br = pairs_.at(b->buffer.get())[size_t(t)];
      int64_t a0 = eval(a->indices[0], t), b0 = eval(b->indices[0], t), c0 = eval(c->indices[0], t);
      for (int i = 0; i < 8; ++i) {
        const Pair& reg = ar[size_t(a0 + i / 2)];
        int row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
        int col = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);
        A[row][col] = i % 2 ? reg.hi : reg.lo;
        ++seen_a[row][col];
      }
      for (int i = 0; i < 4; ++i) {
        const Pair& reg = br[size_t(b0 + i / 2)];
        int row = tig * 2 + (i & 1) + (i >= 2 ? 8 : 0);
        B[row][g] = i % 2 ? reg.hi : reg.lo;
        ++seen_b[row][g];
      }
      for (int i = 0; i < 4; ++i) {
        int row = i < 2 ? g : g + 8, col = tig * 2 + (i & 1);
        C[row][col] = floats(c->buffer, t)[size_t(c0 + i)];
        ++seen_c[row][col];
      }
    }
    for (int r = 0; r < 16; ++r) {
      for (int k = 0; k < 16; ++k) ASSERT_EQ(seen_a[r][k], 1);
      for (int n = 0; n < 8; ++n) ASSERT_EQ(seen_c[r][n], 1);
    }
    for (int k = 0; k < 16; ++k)
      for (int n = 0; n < 8; ++n) ASSERT_EQ(seen_b[k][n], 1);
    for (int lane = 0; lane < 32; ++lane) {
      int64_t t = warp * 32 + lane;
      int g = lane >> 2, tig = lane % 4;
      int64_t c0 = eval(c->indices[0], t);
      for (int i = 0; i < 4; ++i) {
        int row = i < 2 ? g : g + 8, col = tig * 2 + (i & 1);
        double d = C[row][col];
        for (int k = 0; k < 16; ++k) d += A[row][k] * B[k][col];
        floats(c->buffer, t)[size_t(c0 + i)] = d;
      }
    }
  }

  int64_t threads_;
  std::vector<VarMap> env_;
  std::map<const BufferNode*, std::pair<Buffer, std::vector<double>>> shared_;
  std::map<const BufferNode*, std::vector<std::vector<double>>> floats_;
  std::map<const BufferNode*, std::vector<std::vector<Pair>>> pairs_;
};

struct MmaCase {
  int64_t M, N, K, threads;
  bool ta, tb, clear;
  std::string dtype;
};

void PrintTo(const MmaCase& c, std::ostream* out) {
  *out << fmt::format("{}x{}x{} threads={} ta={} tb={} clear={} {}", c.M, c.N, c.K, c.threads, c.ta,
                      c.tb, c.clear, c.dtype);
}

class MmaSimulation : public ::testing::TestWithParam<MmaCase> {};

TEST_P(MmaSimulation, LoweredGemmOnTheIsaModelEqualsAReferenceGemm) {
  const MmaCase& c = GetParam();
  std::string source = fmt::format(
      R"PY(
import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor({a}, "{dt}"), B: T.Tensor({b}, "{dt}"), C: T.Tensor(({M}, {N}), "float32")):
    with T.Kernel(1, threads={T}) as bx:
        A_s = T.alloc_shared({a}, "{dt}")
        B_s = T.alloc_shared({b}, "{dt}")
        C_l = T.alloc_fragment(({M}, {N}), "float32")
        T.copy(A, A_s)
        T.copy(B, B_s)
        T.gemm(A_s, B_s, C_l, transpose_A={ta}, transpose_B={tb}, clear_accum={clear})
        T.copy(C_l, C)
)PY",
      fmt::arg("a", c.ta ? fmt::format("({}, {})", c.K, c.M) : fmt::format("({}, {})", c.M, c.K)),
      fmt::arg("b", c.tb ? fmt::format("({}, {})", c.N, c.K) : fmt::format("({}, {})", c.K, c.N)),
      fmt::arg("dt", c.dtype), fmt::arg("M", c.M), fmt::arg("N", c.N), fmt::arg("T", c.threads),
      fmt::arg("ta", c.ta ? "True" : "False"), fmt::arg("tb", c.tb ? "True" : "False"),
      fmt::arg("clear", c.clear ? "True" : "False"));
  IRModule mod = parse_kernel_source(source);
  Stmt gemm;
  post_order_visit(mod.functions().front()->body, [&](const Stmt* s, const Expr*) {
    if (s && s->kind() == StmtKind::kGemm) gemm = *s;
  });
  ASSERT_TRUE(gemm.defined());
  const GemmNode* op = gemm.as<GemmNode>();

  transform::register_tile_op_impl(cuda::mma_gemm_impl());
  target::Target target = target::Target::parse("cuda -arch=sm_80");
  Var tid = make_var("tid");
  gpu::SimtContext context(tid, c.threads, "mm");
  gpu::ScopedSimtContext current(context);
  transform::lower_tile_op(gemm, target);  // planning: records the accumulator's layout
  ASSERT_EQ(context.requirements().count(op->c.buffer.get()), 1u);
  gpu::FragmentLayout layout = context.requirements().at(op->c.buffer.get()).layout;
  ASSERT_EQ(layout.kind.rfind("mma m16n8 C/D", 0), 0u) << layout.kind;
  EXPECT_EQ(gpu::check_layout(layout), "");
  gpu::FragmentLayouts layouts{{op->c.buffer.get(), layout}};
  context.start_lowering(layouts);
  Stmt lowered = transform::lower_tile_op(gemm, target);
  Buffer acc = context.register_buffer(op->c.buffer);

  // Operands: small integers; C starts at values of its own.
  auto a_at = [&](int64_t m, int64_t k) { return double((m * 3 + k * 5) % 7 - 3); };
  auto b_at = [&](int64_t k, int64_t n) { return double((k * 2 + n * 7) % 5 - 2); };
  auto c_at = [&](int64_t m, int64_t n) { return double((m + 2 * n) % 9); };
  std::vector<double> a_tile, b_tile;
  for (int64_t r = 0; r < (c.ta ? c.K : c.M); ++r)
    for (int64_t q = 0; q < (c.ta ? c.M : c.K); ++q)
      a_tile.push_back(c.ta ? a_at(q, r) : a_at(r, q));
  for (int64_t r = 0; r < (c.tb ? c.N : c.K); ++r)
    for (int64_t q = 0; q < (c.tb ? c.K : c.N); ++q)
      b_tile.push_back(c.tb ? b_at(q, r) : b_at(r, q));
  BlockSimulator sim(c.threads, tid);
  sim.set_shared(op->a.buffer, a_tile);
  sim.set_shared(op->b.buffer, b_tile);
  for (int64_t t = 0; t < c.threads; ++t) {
    for (int64_t r = 0; r < layout.registers; ++r) {
      auto e = layout.element_at(t, r);
      ASSERT_TRUE(e);
      sim.floats(acc, t)[size_t(r)] = c_at((*e)[0], (*e)[1]);
    }
  }
  sim.run(lowered);
  ASSERT_FALSE(::testing::Test::HasFailure()) << print(lowered);
  EXPECT_GT(sim.executed_ldmatrix, 0);
  EXPECT_GT(sim.executed_mma, 0);
  int mismatches = 0;
  for (int64_t t = 0; t < c.threads; ++t) {
    for (int64_t r = 0; r < layout.registers; ++r) {
      auto e = *layout.element_at(t, r);
      double want = c.clear ? 0 : c_at(e[0], e[1]);
      for (int64_t k = 0; k < c.K; ++k) want += a_at(e[0], k) * b_at(k, e[1]);
      double got = sim.floats(acc, t)[size_t(r)];
      if (got != want && ++mismatches < 5)
        ADD_FAILURE() << "C[" << e[0] << ", " << e[1] << "] (thread " << t << ", register " << r
                      << ") = " << got << ", want " << want;
    }
  }
  EXPECT_EQ(mismatches, 0) << print(lowered);
}

INSTANTIATE_TEST_SUITE_P(WarpTilings, MmaSimulation,
                         ::testing::Values(MmaCase{64, 64, 32, 128, false, false, false, "float16"},
                                           MmaCase{64, 64, 32, 128, true, false, false, "float16"},
                                           MmaCase{64, 64, 32, 128, false, true, true, "float16"},
                                           MmaCase{64, 64, 32, 128, true, true, false, "bfloat16"},
                                           MmaCase{32, 16, 16, 64, false, false, true, "bfloat16"},
                                           MmaCase{16, 32, 48, 128, false, true, false, "float16"},
                                           MmaCase{128, 64, 16, 256, true, false, false,
                                                   "float16"}),
                         [](const ::testing::TestParamInfo<MmaCase>& info) {
                           const MmaCase& c = info.param;
                           return fmt::format("M{}N{}K{}T{}{}{}{}_{}", c.M, c.N, c.K, c.threads,
                                              c.ta ? "_ta" : "", c.tb ? "_tb" : "",
                                              c.clear ? "_clear" : "", c.dtype);
                         });

TEST(MmaLayouts, WarpTilingsAndTheAccumulatorLayout) {
  auto w = cuda::choose_warp_tiling(64, 64, 128);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->warps_m * w->warps_n, 4);
  EXPECT_EQ(w->WM * w->warps_m, 64);
  EXPECT_EQ(w->WN * w->warps_n, 64);
  gpu::FragmentLayout l = cuda::mma_accumulator_layout(64, 64, *w);
  EXPECT_EQ(gpu::check_layout(l), "");
  // The PTX ISA's C/D fragment: lane 5 (group 1, thread 1 in it) of warp 0 holds c0..c3 at
  // (1, 2), (1, 3), (9, 2), (9, 3) of the first m16n8 tile.
  EXPECT_EQ(l.element_at(5, 0), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(l.element_at(5, 1), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(l.element_at(5, 2), (std::vector<int64_t>{9, 2}));
  EXPECT_EQ(l.element_at(5, 3), (std::vector<int64_t>{9, 3}));
  // No tiling: a thread count that is not whole warps, or tiles the warps cannot cover.
  EXPECT_FALSE(cuda::choose_warp_tiling(64, 64, 96 + 1));
  EXPECT_FALSE(cuda::choose_warp_tiling(16, 16, 128));
  EXPECT_EQ(cuda::cuda_sm_version(target::Target::parse("cuda -arch=sm_90")), 90);
  EXPECT_EQ(cuda::cuda_sm_version(target::Target::parse("cuda -arch=sm_75")), 75);
}

}  // namespace
}  // namespace tilec
