#include "interp_widen.h"

#include <cstring>

namespace tilec::interp {
namespace {

// Each widening reads the bits through memcpy (src has no alignment) and ORs a flag per
// element instead of branching, so the loop vectorizes when step is 1. Bits is the
// element's storage type; widen(bits) is its float, special(bits) 1 for Inf or NaN.
template <typename Bits, typename Widen, typename Special>
[[gnu::always_inline]] inline bool widen_run(const char* src, int64_t count, float* dst,
                                             int64_t step, Widen widen, Special special) {
  uint32_t any_special = 0;
  auto at = [src](int64_t i) {
    Bits bits;
    std::memcpy(&bits, src + i * int64_t(sizeof(Bits)), sizeof(Bits));
    return bits;
  };
  if (step == 1) {
    for (int64_t i = 0; i < count; ++i) {
      Bits bits = at(i);
      any_special |= special(bits);
      dst[i] = widen(bits);
    }
  } else {
    for (int64_t i = 0; i < count; ++i) {
      Bits bits = at(i);
      any_special |= special(bits);
      dst[i * step] = widen(bits);
    }
  }
  return any_special == 0;
}

float float_of_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t bits_of_float(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

}  // namespace

bool widen_float16_run(const char* src, int64_t count, float* dst, int64_t step) {
  // The exponent and mantissa moved into float's places make 2^-112 times the value (a
  // subnormal half becomes a subnormal float); the multiply by 2^112 is exact.
  auto widen = [](uint16_t h) {
    float scaled = float_of_bits(uint32_t(h & 0x7FFFu) << 13) * 0x1p112f;
    return float_of_bits(bits_of_float(scaled) | (uint32_t(h & 0x8000u) << 16));
  };
  auto special = [](uint16_t h) { return uint32_t((h & 0x7FFFu) >= 0x7C00u); };
  return widen_run<uint16_t>(src, count, dst, step, widen, special);
}

bool widen_bfloat16_run(const char* src, int64_t count, float* dst, int64_t step) {
  auto widen = [](uint16_t h) { return float_of_bits(uint32_t(h) << 16); };
  auto special = [](uint16_t h) { return uint32_t((h & 0x7F80u) == 0x7F80u); };
  return widen_run<uint16_t>(src, count, dst, step, widen, special);
}

bool widen_float32_run(const char* src, int64_t count, float* dst, int64_t step) {
  auto widen = [](uint32_t bits) { return float_of_bits(bits); };
  auto special = [](uint32_t bits) { return uint32_t((bits & 0x7F800000u) == 0x7F800000u); };
  return widen_run<uint32_t>(src, count, dst, step, widen, special);
}

}  // namespace tilec::interp
