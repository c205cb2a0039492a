// cpu/prefetch.h through the whole pipeline: both cpu codegens print the prefetch of a
// T.Pipelined loop's next tiles as a prefetch of the element's address, and
// cpu.prefetch=false leaves it out.
#include "tilec/cpu/prefetch.h"
#include "tilec/frontend/parser.h"
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace tilec::cpu {
namespace {

using namespace ir;

constexpr const char* kPipelined = R"(
import tilelang.language as T
@T.prim_func
def mm(A: T.Tensor((100, 64), "float32"), B: T.Tensor((64, 72), "float32"), C: T.Tensor((100, 72), "float32")):
    with T.Kernel(T.ceildiv(72, 32), T.ceildiv(100, 32), threads=64) as (bx, by):
        A_shared = T.alloc_shared((32, 16), "float32")
        B_shared = T.alloc_shared((16, 32), "float32")
        C_local = T.alloc_fragment((32, 32), "float32")
        T.clear(C_local)
        for k in T.Pipelined(4, num_stages=2):
            T.copy(A[by * 32, k * 16], A_shared)
            T.copy(B[k * 16, bx * 32], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        for k in T.serial(4):
            T.copy(A[by * 32, k * 16], A_shared)
        T.copy(C_local, C[by * 32, bx * 32])
)";

TEST(CpuPrefetch, BothCodegensPrintItAndTheKeyTurnsItOff) {
  setenv("TILEC_DISABLE_CACHE", "1", 1);
  IRModule mod = parse_kernel_source(kPipelined);
  std::vector<std::pair<std::string, std::string>> kinds = {{"c", "__builtin_prefetch(&A["}};
#ifdef TILEC_HAVE_LLVM
  kinds.push_back({"llvm", "@llvm.prefetch"});
#endif
  for (const auto& [kind, text] : kinds) {
    SCOPED_TRACE(kind);
    Kernel on = compile(mod, kind, std::nullopt, kind == "c" ? "native" : "auto");
    EXPECT_NE(on.device_source().find(text), std::string::npos);
    Kernel off = compile(mod, kind, std::nullopt, kind == "c" ? "native" : "auto",
                         {{kPrefetchConfigKey, false}});
    EXPECT_EQ(off.device_source().find(text), std::string::npos);
  }
}

}  // namespace
}  // namespace tilec::cpu
