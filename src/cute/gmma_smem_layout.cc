#include "tilec/cute/gmma_smem_layout.h"

#include <fmt/format.h>

namespace tilec::cute {

using namespace ir;

namespace {

constexpr const char* kSwizzleNames[] = {"INTER", "SW32", "SW64", "SW128"};

int log2_exact(int64_t v) {
  int bits = 0;
  while ((int64_t(1) << bits) < v) ++bits;
  return bits;
}

}  // namespace

std::string GmmaSmemLayout::cute_atom() const {
  return fmt::format("GMMA::Layout_{}_{}_Atom", major == kK ? "K" : "MN", kSwizzleNames[bits]);
}

std::string GmmaSmemLayout::describe() const {
  return fmt::format(
      "{}-major {} ({})", major == kK ? "K" : "MN",
      bits == 0 ? std::string("interleaved") : fmt::format("{}-byte swizzled", 16 << bits),
      cute_atom());
}

int64_t GmmaSmemLayout::offset(int64_t flat) const {
  const int64_t tile = rows * cols, ac = atom_cols();
  const int64_t stage = flat / tile, row = flat % tile / cols, col = flat % cols;
  const int64_t row_step = major == kK ? 8 * ac : 8 * cols;
  const int64_t col_step = major == kK ? rows * ac : 8 * ac;
  int64_t e = row % 8 * ac + col % ac + row / 8 * row_step + col / ac * col_step;
  // Swizzle<bits, 4, 3> on bytes is Swizzle<bits, m, 3> on elements, m = log2(16 / bytes).
  const int m = log2_exact(16 / element_bytes);
  e ^= ((e >> (m + 3)) & ((int64_t(1) << bits) - 1)) << m;
  return stage * tile + e;
}

Expr GmmaSmemLayout::index(const Expr& flat) const {
  DataType t = flat.dtype();
  std::vector<Expr> args = {flat};
  for (int64_t v : {int64_t(code()), rows, cols, element_bytes}) args.push_back(make_int(v, t));
  return call_extern(t, kGmmaSmemOffsetCall, std::move(args));
}

std::optional<GmmaSmemLayout> choose_gmma_smem_layout(GmmaSmemLayout::Major major, int64_t rows,
                                                      int64_t cols, int64_t element_bytes) {
  if (element_bytes <= 0 || 16 % element_bytes != 0 || rows <= 0 || rows % 8 != 0) {
    return std::nullopt;
  }
  for (int bits = 3; bits >= 0; --bits) {
    GmmaSmemLayout l{major, bits, rows, cols, element_bytes};
    if (cols % l.atom_cols() == 0) return l;
  }
  return std::nullopt;
}

std::optional<GmmaSmemLayout> gmma_smem_layout_of_code(int64_t code, int64_t rows, int64_t cols,
                                                       int64_t element_bytes) {
  if (code < 1 || code > 8) return std::nullopt;
  GmmaSmemLayout l{GmmaSmemLayout::Major((code - 1) / 4), int((code - 1) % 4), rows, cols,
                   element_bytes};
  if (rows % 8 != 0 || cols % l.atom_cols() != 0) return std::nullopt;
  return l;
}

std::optional<cuda::SharedTileLayout> gmma_shared_tile_layout(int64_t code, int64_t rows,
                                                              int64_t cols, int64_t element_bytes) {
  auto l = gmma_smem_layout_of_code(code, rows, cols, element_bytes);
  if (!l) return std::nullopt;
  return cuda::SharedTileLayout{code, fmt::format("{} of {}x{}", l->describe(), rows, cols),
                                [layout = *l](const Expr& flat) { return layout.index(flat); }};
}

}  // namespace tilec::cute
