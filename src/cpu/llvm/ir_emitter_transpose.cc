// A square tile transposed in registers (cpu/transpose_tile.h): LLVM's shufflevector
// rounds, which the x86 backend selects as unpack/shuffle/permute instructions.
#include "ir_emitter.h"

#include <fmt/format.h>

namespace tilec::cpu::llvm_codegen {

void IREmitter::emit_transpose_tile(const TransposeTile& tile) {
  const BufferSlot* src_slot = nullptr;
  const BufferSlot* dst_slot = nullptr;
  llvm::Value* src = element_pointer(tile.src->buffer, tile.src->indices, &src_slot);
  llvm::Value* dst = element_pointer(tile.dst->buffer, tile.dst->indices, &dst_slot);
  if (!src || !dst || !tile.src->buffer->dtype.is_float() || tile.src->buffer->dtype.bits != 32 ||
      tile.dst->buffer->dtype != tile.src->buffer->dtype)
    fail(fmt::format("{} of '{}' into '{}': needs float32 tiles outside a vector body",
                     kTransposeTileFunction, tile.src->buffer->name, tile.dst->buffer->name));
  auto stride = [&](const ir::Expr& e) { return builder_.CreateSExtOrTrunc(emit(e), i64()); };
  llvm::Value* src_stride = stride(tile.src_stride);
  llvm::Value* dst_stride = stride(tile.dst_stride);
  const unsigned lanes = unsigned(tile.lanes);
  llvm::Type* element = builder_.getFloatTy();
  auto* vector = llvm::FixedVectorType::get(element, lanes);
  auto row = [&](llvm::Value* base, llvm::Value* stride, unsigned i) {
    return builder_.CreateInBoundsGEP(element, base,
                                      builder_.CreateMul(builder_.getInt64(i), stride));
  };
  std::vector<llvm::Value*> rows(lanes);
  for (unsigned i = 0; i < lanes; ++i)
    rows[i] = builder_.CreateAlignedLoad(vector, row(src, src_stride, i), llvm::Align(4));
  for (unsigned half = lanes / 2; half >= 1; half /= 2) {
    auto [first, second] = transpose_shuffle_masks(lanes, half);
    for (unsigned i = 0; i < lanes; ++i) {
      if (i & half) continue;
      llvm::Value* a = rows[i];
      llvm::Value* b = rows[i + half];
      rows[i] = builder_.CreateShuffleVector(a, b, first);
      rows[i + half] = builder_.CreateShuffleVector(a, b, second);
    }
  }
  for (unsigned i = 0; i < lanes; ++i)
    builder_.CreateAlignedStore(rows[i], row(dst, dst_stride, i), llvm::Align(4));
}

}  // namespace tilec::cpu::llvm_codegen
