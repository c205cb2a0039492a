// T.fill / T.clear of a whole tile (the value encoded once and repeated) against the same
// value stored element by element, in tile dtypes of every width: the same bits, and the
// tile counts as written (reading it back is no error).
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace tilec::ir {
namespace {

std::vector<HostTensor> run(const std::string& dtype, const std::string& value, bool by_fill) {
  std::string write = by_fill ? fmt::format("T.fill(S, {})", value)
                              : fmt::format(
                                    "for i, j in T.Parallel(5, 67):\n"
                                    "            S[i, j] = {}",
                                    value);
  IRModule module = parse_kernel_source(fmt::format(R"(
import tilelang.language as T

@T.prim_func
def fill(B: T.Tensor((5, 67), "float64")):
    with T.Kernel(1) as bx:
        S = T.alloc_fragment((5, 67), "{}")
        {}
        T.copy(S, B)
)",
                                                    dtype, write));
  RandomArgs args = make_random_args(module.functions()[0], {}, 3);
  interpret(module.functions()[0], args.args);
  return std::move(args.tensors);
}

TEST(FillWholeTile, MatchesTheValueStoredElementByElement) {
  for (const char* dtype :
       {"float8_e4m3", "float16", "bfloat16", "float32", "float64", "int8", "int64", "bool"}) {
    for (const char* value : {"1.7", "-3", "0"}) {
      std::vector<HostTensor> filled = run(dtype, value, true), stored = run(dtype, value, false);
      EXPECT_EQ(std::memcmp(filled[0].data(), stored[0].data(), filled[0].view().nbytes()), 0)
          << dtype << " filled with " << value;
    }
  }
}

}  // namespace
}  // namespace tilec::ir
