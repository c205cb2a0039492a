// The interpreter's float32 reductions (machine floats, several outputs at a time) against
// the rule of docs/semantics.md computed here element by element: each output starts from
// the destination (or the identity with clear=True) and combines the source along `dim` in
// ascending order, each step in float32. Every kind, every dimension of a 3-d source
// (widths past the 64-output blocks), the kept-dimension form, cleared and accumulated
// destinations, and sources holding NaN, infinities and both zeros; compared bit for bit.
#include "tilec/frontend/parser.h"
#include "tilec/interp/interpreter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>

namespace tilec::ir {
namespace {

constexpr std::array<int64_t, 3> kShape = {5, 70, 67};

// The four destinations: dim 0, dim 1, dim -1 and dim 1 kept as an extent of 1.
struct Case {
  int dim;
  bool keep;
};
constexpr std::array<Case, 4> kCases = {{{0, false}, {1, false}, {2, false}, {1, true}}};

std::string shape_of(const Case& c) {
  std::vector<int64_t> shape;
  for (int k = 0; k < 3; ++k) {
    if (k != c.dim) shape.push_back(kShape[size_t(k)]);
    if (k == c.dim && c.keep) shape.push_back(1);
  }
  return fmt::format("({},)", fmt::join(shape, ", "));
}

std::string kernel(const std::string& kind, bool clear) {
  std::string params, allocs, loads, reduces, stores;
  for (size_t i = 0; i < kCases.size(); ++i) {
    std::string shape = shape_of(kCases[i]);
    params += fmt::format(", D{0}: T.Tensor({1}, \"float32\"), O{0}: T.Tensor({1}, \"float32\")", i,
                          shape);
    allocs += fmt::format("        d{} = T.alloc_fragment({}, \"float32\")\n", i, shape);
    loads += fmt::format("        T.copy(D{0}, d{0})\n", i);
    reduces += fmt::format("        T.reduce_{}(A_f, d{}, dim={}, clear={})\n", kind, i,
                           kCases[i].dim == 2 ? -1 : kCases[i].dim, clear ? "True" : "False");
    stores += fmt::format("        T.copy(d{0}, O{0})\n", i);
  }
  return fmt::format(R"(
import tilelang.language as T

@T.prim_func
def rf(A: T.Tensor((5, 70, 67), "float32"){}):
    with T.Kernel(1) as bx:
        A_f = T.alloc_fragment((5, 70, 67), "float32")
{}        T.copy(A, A_f)
{}{}{})",
                     params, allocs, loads, reduces, stores);
}

float combine(const std::string& kind, float acc, float v) {
  if (kind == "abssum" || kind == "absmax") v = std::fabs(v);
  if (kind == "sum" || kind == "abssum") return acc + v;
  if (kind == "min") return float(std::fmin(double(acc), double(v)));
  return float(std::fmax(double(acc), double(v)));
}

float identity(const std::string& kind) {
  return kind == "max" || kind == "absmax" ? -INFINITY : kind == "min" ? INFINITY : 0.0f;
}

TEST(ReduceFloat32, EveryKindAndDimMatchesTheSerialRuleBitForBit) {
  for (const char* kind : {"sum", "abssum", "max", "min", "absmax"}) {
    for (bool clear : {true, false}) {
      IRModule module = parse_kernel_source(kernel(kind, clear));
      PrimFunc func = module.functions()[0];
      RandomArgs args = make_random_args(func, {}, 11);
      // Special values at scattered places of the source (and a NaN destination).
      auto* a = static_cast<float*>(args.tensors[0].data());
      const float specials[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, 3e38f, -3e38f, 1e-45f};
      for (int64_t i = 0; i < args.tensors[0].numel(); i += 97)
        a[i] = specials[size_t(i / 97) % std::size(specials)];
      static_cast<float*>(args.tensors[1].data())[3] = NAN;
      std::vector<HostTensor> inputs = args.tensors;
      interpret(func, args.args);
      for (size_t i = 0; i < kCases.size(); ++i) {
        const Case& c = kCases[i];
        const auto* init = static_cast<const float*>(inputs[1 + 2 * i].data());
        const auto* got = static_cast<const float*>(args.tensors[2 + 2 * i].data());
        int64_t outer = 1, inner = 1;  // dims before and after c.dim
        for (int k = 0; k < 3; ++k)
          (k < c.dim ? outer : inner) *= k == c.dim ? 1 : kShape[size_t(k)];
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t in = 0; in < inner; ++in) {
            int64_t out = o * inner + in;
            float acc = clear ? identity(kind) : init[out];
            for (int64_t r = 0; r < kShape[size_t(c.dim)]; ++r)
              acc = combine(kind, acc, a[(o * kShape[size_t(c.dim)] + r) * inner + in]);
            ASSERT_EQ(std::memcmp(&acc, &got[out], 4), 0)
                << kind << (clear ? " clear" : " accumulated") << " dim " << c.dim
                << (c.keep ? " kept" : "") << " output " << out << ": want " << acc << ", got "
                << got[out];
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tilec::ir
