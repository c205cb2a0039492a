// cpu/prefetch.h through the whole pipeline: both cpu codegens print the prefetch of a
// T.Pipelined loop's next tiles as a prefetch of the element's address with
// cpu.prefetch=true and by default, and leave it out with cpu.prefetch=false.
#include "build_paths.h"
#include "tilec/cpu/prefetch.h"
#include "tilec/frontend/parser.h"
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace tilec::cpu {
namespace {

using namespace ir;

TEST(CpuPrefetch, BothCodegensPrintItUnlessTheKeyTurnsItOff) {
  setenv("TILEC_DISABLE_CACHE", "1", 1);
  // examples/gemm_fp32.py: a T.Pipelined K loop copying tiles of A and B.
  IRModule mod = parse_kernel_file(std::string(TILEC_SOURCE_DIR) + "/examples/gemm_fp32.py");
  std::vector<std::pair<std::string, std::string>> kinds = {{"c", "__builtin_prefetch(&A["}};
#ifdef TILEC_HAVE_LLVM
  kinds.push_back({"llvm", "@llvm.prefetch"});
#endif
  for (const auto& [kind, text] : kinds) {
    SCOPED_TRACE(kind);
    Kernel on = compile(mod, kind, std::nullopt, kind == "c" ? "native" : "auto",
                        {{kPrefetchConfigKey, true}});
    EXPECT_NE(on.device_source().find(text), std::string::npos);
    Kernel off = compile(mod, kind, std::nullopt, kind == "c" ? "native" : "auto",
                         {{kPrefetchConfigKey, false}});
    EXPECT_EQ(off.device_source().find(text), std::string::npos);
    Kernel by_default = compile(mod, kind, std::nullopt, kind == "c" ? "native" : "auto");
    EXPECT_NE(by_default.device_source().find(text), std::string::npos);
  }
}

}  // namespace
}  // namespace tilec::cpu
