// T.Pipelined's cp.async pipeline (cp_async.h) without a GPU:
// - its shape in the tile IR (staged tiles, prologue groups, where the waits and the barrier
//   are) and in the lowered per-thread code and CUDA source (16-byte cp.async.cg moves,
//   zero-filled edges, commit/wait groups), and which loops it leaves serial;
// - its meaning: the pipelined tile IR, with the commit/wait calls dropped so that each
//   asynchronous copy is the plain T.copy it completes as, run by the interpreter gives
//   exactly what the original kernel gives, over stage counts, trip counts shorter than the
//   prologue, loop starts other than 0, masked edge tiles and copies in the middle of the
//   body, which proves the stage indexing and the rotation of the buffers;
// - NVRTC + ptxas accept the cp.async PTX for sm_80 and sm_90 (every example is compiled in
//   cuda_backend_test; here the GEMM examples' PTX must contain the instructions).
#include "../cli_support.h"
#include "../engine/test_support.h"

#include "tilec/cuda/cp_async.h"
#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/mutator.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/visitor.h"
#include "tilec/target/target.h"

#include <fstream>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;
using namespace ir;

IRModule pipelined(const IRModule& mod, const std::string& target = "cuda -arch=sm_80") {
  return cuda::inject_cp_async_pipeline(mod, target::Target::parse(target));
}

// The pipeline's commit/wait calls removed: every cp.async then is the T.copy it was.
class DropAsyncCalls : public StmtMutator {
 protected:
  Stmt mutate_seq(const SeqNode* op, const Stmt& self) override {
    Stmt s = StmtMutator::mutate_seq(op, self);
    std::vector<Stmt> kept;
    for (const Stmt& item : s.as<SeqNode>()->stmts)
      if (!cuda::is_cp_async_call(item, cuda::kCpAsyncCommit) &&
          !cuda::is_cp_async_call(item, cuda::kCpAsyncWait))
        kept.push_back(item);
    return seq(kept, op->span);
  }
};

// Interprets `original` and its pipelined form on the same random inputs; every tensor
// must be bitwise equal (the pipeline reorders no arithmetic).
void expect_same_results(const IRModule& original,
                         const std::map<std::string, int64_t>& values = {}) {
  IRModule piped = pipelined(original);
  ASSERT_EQ(original.functions().size(), piped.functions().size());
  for (size_t f = 0; f < original.functions().size(); ++f) {
    const PrimFunc& a = original.functions()[f];
    PrimFunc b =
        with_body(piped.functions()[f], DropAsyncCalls().mutate(piped.functions()[f]->body));
    ASSERT_NE(print(a), print(b)) << "not pipelined:\n" << print(a);
    RandomArgs x = make_random_args(a, values, 11);
    RandomArgs y = make_random_args(b, values, 11);
    interpret(a, x.args);
    interpret(b, y.args);
    for (size_t i = 0; i < x.tensors.size(); ++i) {
      CompareResult r = compare_tensors(y.tensors[i].view(), x.tensors[i].view());
      EXPECT_TRUE(r.ok && r.max_abs_err == 0) << "tensor " << i << ": " << r.first_mismatch << "\n"
                                              << print(b);
    }
  }
}

// A GEMM whose K loop is T.Pipelined(start, stop, num_stages) with one copy before the
// gemm and one after a first gemm (as in attention), edges masked when the sizes are not
// multiples of the tiles.
std::string gemm_source(int64_t m, int64_t n, int64_t k, int stages, int64_t start,
                        const char* dtype) {
  return fmt::format(R"(import tilelang.language as T

@T.prim_func
def gemm(A: T.Tensor(({0}, {2}), "{5}"), B: T.Tensor(({2}, {1}), "{5}"), D: T.Tensor(({2}, {1}), "{5}"), C: T.Tensor(({0}, {1}), "float32")):
    with T.Kernel(T.ceildiv({1}, 32), T.ceildiv({0}, 32), threads=128) as (bx, by):
        A_s = T.alloc_shared((32, 16), "{5}")
        B_s = T.alloc_shared((16, 32), "{5}")
        D_s = T.alloc_shared((16, 32), "{5}")
        C_l = T.alloc_fragment((32, 32), "float32")
        T.clear(C_l)
        for k in T.Pipelined({4}, T.ceildiv({2}, 16), num_stages={3}):
            T.copy(A[by * 32, k * 16], A_s)
            T.copy(B[k * 16, bx * 32], B_s)
            T.gemm(A_s, B_s, C_l)
            T.copy(D[k * 16, bx * 32], D_s)
            T.gemm(A_s, D_s, C_l)
        T.copy(C_l, C[by * 32, bx * 32])
)",
                     m, n, k, stages, start, dtype);
}

TEST(CpAsyncPipeline, StagesTheTilesAndPlacesGroupsWaitsAndTheBarrier) {
  IRModule mod = pipelined(parse_kernel_file(testing::example("gemm.py")));
  std::string text = print(mod);
  // num_stages=3: each shared tile has 3 stages; 2 prologue groups; the loop waits until
  // at most 1 group is in flight.
  EXPECT_NE(text.find("A_shared = T.alloc_shared((3, 64, 32), \"float16\")"), std::string::npos)
      << text;
  EXPECT_NE(text.find("B_shared = T.alloc_shared((3, 32, 64), \"float16\")"), std::string::npos)
      << text;
  const KernelNode* kernel = nullptr;
  post_order_visit(mod.functions()[0]->body, [&](const Stmt* s, const Expr*) {
    if (s && s->as<KernelNode>()) kernel = s->as<KernelNode>();
  });
  ASSERT_NE(kernel, nullptr);
  const SeqNode* top = nullptr;
  post_order_visit(kernel->body, [&](const Stmt* s, const Expr*) {
    if (auto* q = s ? s->as<SeqNode>() : nullptr)
      for (const Stmt& item : q->stmts)
        if (item.as<ForNode>() && item.as<ForNode>()->var->name == "k_stage") top = q;
  });
  ASSERT_NE(top, nullptr) << text;
  // clear, prologue, steady loop, wait_group 0, the copy out.
  size_t at = 0;
  while (!top->stmts[at].as<ForNode>() || top->stmts[at].as<ForNode>()->var->name != "k_stage")
    ++at;
  const ForNode* prologue = top->stmts[at].as<ForNode>();
  EXPECT_TRUE(is_const_int(prologue->end, 2)) << text;
  const auto* prologue_body = prologue->body.as<SeqNode>();
  ASSERT_NE(prologue_body, nullptr);
  ASSERT_EQ(prologue_body->stmts.size(), 2u);
  EXPECT_TRUE(prologue_body->stmts[0].as<IfNode>()) << text;
  EXPECT_TRUE(cuda::is_cp_async_call(prologue_body->stmts[1], cuda::kCpAsyncCommit));

  const ForNode* steady = top->stmts[at + 1].as<ForNode>();
  ASSERT_NE(steady, nullptr);
  EXPECT_EQ(steady->for_kind, ForKind::kSerial);
  const auto* body = steady->body.as<SeqNode>();
  ASSERT_NE(body, nullptr);
  ASSERT_EQ(body->stmts.size(), 5u) << text;
  EXPECT_TRUE(cuda::is_cp_async_call(body->stmts[0], cuda::kCpAsyncWait));
  const auto* wait = body->stmts[0].as<EvaluateNode>()->value.as<CallNode>();
  EXPECT_TRUE(is_const_int(wait->args[0], 1));
  EXPECT_TRUE(as_barrier(body->stmts[1].as<EvaluateNode>()->value));
  const auto* issue = body->stmts[2].as<IfNode>();
  ASSERT_NE(issue, nullptr);
  EXPECT_EQ(print(issue->cond), "k + 2 < 8");
  EXPECT_TRUE(cuda::is_cp_async_call(body->stmts[3], cuda::kCpAsyncCommit));
  EXPECT_TRUE(body->stmts[4].as<GemmNode>());
  EXPECT_NE(text.find("T.gemm(A_shared[k % 3, 0:64, 0:32], B_shared[k % 3, 0:32, 0:64]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("A_shared[(k + 2) % 3, 0:64, 0:32]"), std::string::npos) << text;
  EXPECT_TRUE(cuda::is_cp_async_call(top->stmts[at + 2], cuda::kCpAsyncWait));
}

TEST(CpAsyncPipeline, TheInterpreterGivesTheOriginalResults) {
  struct Case {
    int64_t m, n, k;
    int stages;
    int64_t start;
    const char* dtype;
  };
  for (const Case& c : std::vector<Case>{{64, 64, 96, 2, 0, "float16"},
                                         {64, 64, 96, 3, 0, "float16"},
                                         {64, 64, 128, 4, 0, "float32"},
                                         {64, 64, 32, 4, 0, "float16"},  // 2 iterations, 3 prologue
                                         {64, 64, 96, 3, 2, "float16"},  // starts at 2
                                         {50, 40, 100, 3, 0, "float32"}}) {  // masked edges
    SCOPED_TRACE(fmt::format("M={} N={} K={} stages={} start={} {}", c.m, c.n, c.k, c.stages,
                             c.start, c.dtype));
    expect_same_results(
        parse_kernel_source(gemm_source(c.m, c.n, c.k, c.stages, c.start, c.dtype)));
  }
  for (const char* example : {"gemm.py", "gemm_splitk.py", "dequant_gemm.py", "mla_decode.py"}) {
    SCOPED_TRACE(example);
    expect_same_results(parse_kernel_file(testing::example(example)));
  }
}

TEST(CpAsyncPipeline, LoopsWithoutAProducerOrBeforeSm80StaySerial) {
  IRModule gemm = parse_kernel_file(testing::example("gemm.py"));
  EXPECT_EQ(print(pipelined(gemm, "cuda -arch=sm_75")), print(gemm));
  // The tile is read after the loop: staging it would change what that read sees.
  IRModule reused = parse_kernel_source(R"(import tilelang.language as T

@T.prim_func
def f(A: T.Tensor((64, 64), "float32"), C: T.Tensor((16, 64), "float32")):
    with T.Kernel(1, threads=64) as bx:
        A_s = T.alloc_shared((16, 64), "float32")
        acc = T.alloc_fragment((16, 64), "float32")
        T.clear(acc)
        for k in T.Pipelined(4, num_stages=2):
            T.copy(A[k * 16, 0], A_s)
            for i, j in T.Parallel(16, 64):
                acc[i, j] += A_s[i, j]
        for i, j in T.Parallel(16, 64):
            acc[i, j] += A_s[i, j]
        T.copy(acc, C)
)");
  EXPECT_EQ(print(pipelined(reused)), print(reused));
}

Kernel compile_example(const char* file, const std::string& arch, const std::string& backend,
                       const std::map<std::string, std::string>& defines = {}) {
  return compile(parse_kernel_file(testing::example(file), defines), "cuda -arch=" + arch,
                 std::nullopt, backend);
}

TEST(CpAsyncPipeline, LowersToCpAsyncInTheDeviceCode) {
  Kernel kernel = compile_example("gemm.py", "sm_80", "source");
  std::string lowered = print(kernel.lowered());
  EXPECT_NE(lowered.find("tilec_cp_async_cg16"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("tilec_cp_async_commit"), std::string::npos) << lowered;
  const std::string& src = kernel.device_source();
  EXPECT_NE(src.find("TILEC_CP_ASYNC(tilec_cp_async_cg16, \"cg\", 16)"), std::string::npos) << src;
  EXPECT_NE(src.find("tilec_cp_async_cg16(&A_shared["), std::string::npos) << src;
  EXPECT_NE(src.find("tilec_cp_async_wait_group(1)"), std::string::npos) << src;
  EXPECT_NE(src.find("tilec_cp_async_wait_group(0)"), std::string::npos) << src;
  EXPECT_NE(src.find("tilec_mma_m16n8k16_f16"), std::string::npos) << "staged tiles keep the "
                                                                      "tensor cores";
  // Masked edges: 4-byte float32 elements zero-filled through src-size.
  Kernel edges = compile(parse_kernel_source(gemm_source(50, 40, 100, 3, 0, "float32")),
                         "cuda -arch=sm_80", std::nullopt, "source");
  EXPECT_NE(edges.device_source().find("tilec_cp_async_ca4("), std::string::npos)
      << edges.device_source();
  EXPECT_NE(edges.device_source().find(" ? 4 : 0)"), std::string::npos) << edges.device_source();
  // Before sm_80 the loop runs serially with plain copies.
  EXPECT_EQ(compile_example("gemm.py", "sm_75", "source").device_source().find("cp_async"),
            std::string::npos);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CpAsyncPipeline, NvrtcAndPtxasAcceptTheCpAsyncPtx) {
  auto nvrtc = exec::get_execution_backend(cuda::kNvrtcBackendName);
  if (!nvrtc->available()) GTEST_SKIP() << nvrtc->unavailable_reason();
  fs::path ptxas = cuda::cuda_toolkit_root() / "bin" / "ptxas";
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  for (const char* arch : {"sm_80", "sm_90"}) {
    // gemm.py has 3 stages (waits for all but 1 group), gemm_fp32.py 2 (waits for all).
    for (auto [file, wait] : {std::pair{"gemm.py", "cp.async.wait_group 1"},
                              std::pair{"gemm_fp32.py", "cp.async.wait_group 0"}}) {
      SCOPED_TRACE(fmt::format("{} {}", file, arch));
      Kernel kernel = compile_example(file, arch, "nvrtc");
      fs::path ptx = kernel.library_path().parent_path() / "device.ptx";
      std::string text = read_text(ptx);
      EXPECT_NE(text.find("cp.async.cg.shared.global"), std::string::npos) << ptx;
      EXPECT_NE(text.find("cp.async.commit_group"), std::string::npos) << ptx;
      EXPECT_NE(text.find(wait), std::string::npos) << ptx;
      if (!fs::exists(ptxas)) continue;
      exec::ProcessResult checked =
          exec::run_process({ptxas.string(), "-arch=" + std::string(arch), ptx.string(), "-o",
                             ptx.string() + ".cubin"});
      EXPECT_EQ(checked.exit_code, 0) << checked.output;
    }
  }
}

}  // namespace
}  // namespace tilec

// T.Pipelined's order=/stage= (pipeline_schedule.h) on cuda: the schedules the pipeline can
// realize are realized exactly (the statements of stage 0 issued ahead, no others), the
// others are a located error naming the schedule and what is supported.
namespace tilec {
namespace {

using namespace ir;

// gemm_source's loop (copy A, copy B, gemm, copy D, gemm) with `schedule` for num_stages.
std::string scheduled_source(int64_t m, int64_t n, int64_t k, const std::string& schedule) {
  std::string text = gemm_source(m, n, k, 2, 0, "float32");
  const std::string planned = "num_stages=2";
  text.replace(text.find(planned), planned.size(), schedule);
  return text;
}

std::string error_of(const std::string& schedule) {
  try {
    pipelined(parse_kernel_source(scheduled_source(64, 64, 64, schedule)));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(CpAsyncPipelineSchedule, TheScheduleChoosesTheCopiesIssuedAheadAndTheDepth) {
  struct Case {
    const char* schedule;
    int64_t a, b, d;  // stages of A_s, B_s, D_s (1: not staged)
  };
  for (const Case& c : {
           // The planned schedule, spelled out.
           Case{"order=[0, 1, 3, 2, 4], stage=[0, 0, 1, 0, 1]", 2, 2, 2},
           // D's copy in the last stage: it stays a plain copy before its gemm.
           Case{"order=[0, 1, 2, 3, 4], stage=[0, 0, 1, 1, 1]", 2, 2, 1},
           // Only A ahead, three stages deep (stage 1 is empty).
           Case{"order=[0, 1, 2, 3, 4], stage=[0, 2, 2, 2, 2]", 3, 1, 1},
       }) {
    SCOPED_TRACE(c.schedule);
    IRModule original = parse_kernel_source(scheduled_source(64, 64, 64, c.schedule));
    std::string text = print(pipelined(original));
    auto shape = [](const char* name, int64_t stages, const char* tile) {
      return stages > 1
                 ? fmt::format("{} = T.alloc_shared(({}, {}), \"float32\")", name, stages, tile)
                 : fmt::format("{} = T.alloc_shared(({}), \"float32\")", name, tile);
    };
    EXPECT_NE(text.find(shape("A_s", c.a, "32, 16")), std::string::npos) << text;
    EXPECT_NE(text.find(shape("B_s", c.b, "16, 32")), std::string::npos) << text;
    EXPECT_NE(text.find(shape("D_s", c.d, "16, 32")), std::string::npos) << text;
    EXPECT_NE(text.find(fmt::format("\"tilec_cp_async_wait_group\", {})", c.a - 2)),
              std::string::npos)
        << text;
    // Same results as the serial loop, with edges and a trip count below the depth.
    expect_same_results(original);
    expect_same_results(parse_kernel_source(scheduled_source(50, 40, 100, c.schedule)));
    expect_same_results(parse_kernel_source(scheduled_source(32, 32, 16, c.schedule)));
  }
}

TEST(CpAsyncPipelineSchedule, SchedulesItCannotRealizeAreLocatedErrors) {
  struct Case {
    const char* schedule;
    const char* why;
  };
  for (const Case& c : {
           Case{"order=[0, 1, 2, 3, 4], stage=[0, 1, 2, 2, 2]",
                "statement 1 (T.copy at line 13) is in stage 1, between 0 and 2"},
           Case{"order=[0, 1, 2, 3, 4], stage=[0, 0, 0, 1, 1]",
                "statement 2 (T.gemm at line 14) is in stage 0 but cannot be issued ahead"},
           Case{"order=[1, 2, 0, 3, 4], stage=[0, 0, 1, 1, 1]",
                "order emits statement 2 (T.gemm at line 14) (stage 1) before statement 0"},
           Case{"order=[1, 0, 2, 3, 4], stage=[0, 0, 1, 1, 1]",
                "order emits statement 1 (T.copy at line 13) before statement 0 (T.copy at line "
                "12), both in stage 0"},
       }) {
    SCOPED_TRACE(c.schedule);
    std::string message = error_of(c.schedule);
    EXPECT_NE(message.find(c.why), std::string::npos) << message;
    EXPECT_NE(message.find("cannot be realized on cuda"), std::string::npos) << message;
    EXPECT_NE(message.find("stage 0, global->shared T.copy statements"), std::string::npos)
        << message;
    EXPECT_NE(message.find("kernel 'gemm'"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace tilec
