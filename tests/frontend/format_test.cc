// format_kernel_source (`tilec fmt`): the user's tokens, comments and blank-line
// structure survive, layout becomes canonical, formatting twice changes nothing, and
// the result parses to a structurally equal module; -D replaces a constant's value.
#include "tilec/frontend/format.h"
#include "build_paths.h"

#include "tilec/frontend/parser.h"
#include "tilec/ir/structural.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tilec::ir {
namespace {

constexpr const char* kMessy = R"(#   leading comment
import tilelang.language as T
N=1024 # the length
block_N =   128



# after many blank lines
@T.prim_func
def f(A:T.Tensor((N,),"float32"), B: T.Tensor( (N,) , 'float32' ),
          C: T.Tensor((N,), "float32")):  # trailing
  with T.Kernel(T.ceildiv(N,block_N),threads = 128) as bx:
      # inside
      for i in T.Parallel(block_N):
          idx=bx*block_N+i
          if idx<N:
              C[idx]=A[idx]+B[idx]*-1.0   # negated
# end comment
)";

constexpr const char* kCanonical = R"(#   leading comment
import tilelang.language as T
N = 1024  # the length
block_N = 128


# after many blank lines
@T.prim_func
def f(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), 'float32'),
        C: T.Tensor((N,), "float32")):  # trailing
    with T.Kernel(T.ceildiv(N, block_N), threads=128) as bx:
        # inside
        for i in T.Parallel(block_N):
            idx = bx * block_N + i
            if idx < N:
                C[idx] = A[idx] + B[idx] * -1.0  # negated
# end comment
)";

bool same_module(const IRModule& a, const IRModule& b) {
  return structural_equal(a, b);
}

TEST(Format, CanonicalLayoutKeepsCommentsNamesAndBlankLines) {
  EXPECT_EQ(format_kernel_source(kMessy, "messy.py"), kCanonical);
}

TEST(Format, IsIdempotentAndParsesBackStructurallyEqual) {
  std::string once = format_kernel_source(kMessy, "messy.py");
  EXPECT_EQ(format_kernel_source(once, "messy.py"), once);
  EXPECT_TRUE(same_module(parse_kernel_source(kMessy, {.filename = "a.py", .defines = {}}),
                          parse_kernel_source(once, {.filename = "b.py", .defines = {}})));
}

TEST(Format, EveryExampleIsAFixedPoint) {
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(TILEC_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    std::string once = format_kernel_source(text.str(), entry.path().string());
    EXPECT_EQ(format_kernel_source(once, "again.py"), once) << entry.path();
    EXPECT_TRUE(same_module(parse_kernel_file(entry.path().string()),
                            parse_kernel_source(once, {.filename = "x.py", .defines = {}})))
        << entry.path();
  }
}

TEST(Format, DefinesReplaceTheConstantsValue) {
  std::string out = format_kernel_source(kMessy, "messy.py", {{"N", "77"}});
  EXPECT_NE(out.find("\nN = 77  # the length\n"), std::string::npos) << out;
  EXPECT_NE(out.find("T.Tensor((N,), \"float32\")"), std::string::npos) << out;
}

TEST(Format, BracketsEndingALineGetAHangingIndent) {
  std::string src =
      "import tilelang.language as T\n"
      "@T.prim_func\n"
      "def f(\n"
      "  A: T.Tensor((4,), \"float32\"),\n"
      "):\n"
      "    with T.Kernel(1) as bx:\n"
      "        A[0] = 1.0\n";
  std::string out = format_kernel_source(src, "h.py");
  EXPECT_NE(out.find("def f(\n    A: T.Tensor((4,), \"float32\"),\n):\n"), std::string::npos)
      << out;
  EXPECT_EQ(format_kernel_source(out, "h.py"), out);
}

}  // namespace
}  // namespace tilec::ir
