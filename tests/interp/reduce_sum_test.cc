// The interpreter's float32 T.reduce_sum / T.reduce_abssum (machine-float sums) against
// the same sums written as serial loops of float32 adds, bit for bit: over either
// dimension, into a cleared or an accumulated destination, with rows long enough for
// rounding to matter.
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace tilec::ir {
namespace {

std::string kernel(const std::string& body) {
  return fmt::format(R"(
import tilelang.language as T

@T.prim_func
def rs(A: T.Tensor((37, 300), "float32"), D0: T.Tensor((300,), "float32"),
       D1: T.Tensor((37,), "float32"), O0: T.Tensor((300,), "float32"),
       O1: T.Tensor((37,), "float32")):
    with T.Kernel(1) as bx:
        A_f = T.alloc_fragment((37, 300), "float32")
        d0 = T.alloc_fragment((300,), "float32")
        d1 = T.alloc_fragment((37,), "float32")
        T.copy(A, A_f)
        T.copy(D0, d0)
        T.copy(D1, d1)
{}
        T.copy(d0, O0)
        T.copy(d1, O1)
)",
                     body);
}

std::vector<HostTensor> run(const std::string& source) {
  IRModule module = parse_kernel_source(source);
  PrimFunc func = module.functions()[0];
  RandomArgs args = make_random_args(func, {}, 5);
  interpret(func, args.args);
  return std::move(args.tensors);
}

TEST(ReduceSum, Float32SumsMatchSerialFloat32Adds) {
  for (const char* kind : {"sum", "abssum"}) {
    for (bool clear : {true, false}) {
      std::string value = std::string(kind) == "abssum" ? "T.abs(A_f[{}])" : "A_f[{}]";
      std::string by_op = fmt::format(
          "        T.reduce_{0}(A_f, d0, dim=0, clear={1})\n"
          "        T.reduce_{0}(A_f, d1, dim=1, clear={1})",
          kind, clear ? "True" : "False");
      std::string by_loops = fmt::format(
          R"(        for j in T.serial(300):
            {}
            for i in T.serial(37):
                d0[j] = d0[j] + {}
        for i in T.serial(37):
            {}
            for j in T.serial(300):
                d1[i] = d1[i] + {})",
          clear ? "d0[j] = T.float32(0)" : "pass", fmt::format(fmt::runtime(value), "i, j"),
          clear ? "d1[i] = T.float32(0)" : "pass", fmt::format(fmt::runtime(value), "i, j"));
      std::vector<HostTensor> got = run(kernel(by_op)), want = run(kernel(by_loops));
      for (size_t t : {3u, 4u}) {
        EXPECT_EQ(std::memcmp(got[t].view().data, want[t].view().data, got[t].view().nbytes()), 0)
            << kind << (clear ? " clear" : " accumulated") << " output " << t;
      }
    }
  }
}

}  // namespace
}  // namespace tilec::ir
