// DLPack helpers: tile IR dtype <-> DLDataType, and DLTensorView, a CPU, row-major,
// contiguous DLTensor over memory someone else owns. DLPack 0.6 has no bool: it travels as
// {kDLUInt, 8} (one byte), as PyTorch exports it and the `c` host codegen checks. float8
// travels with DLPack 1.1's codes (kDLFloat8_e4m3fn = 10, kDLFloat8_e5m2 = 12, bits 8),
// which PyTorch's torch.float8_e4m3fn / float8_e5m2 export; Debian's 0.6 header lacks them.
#pragma once

#include "tilec/ir/dtype.h"
#include "tilec/runtime/abi.h"

#include <dlpack/dlpack.h>

#include <optional>
#include <string>
#include <vector>

namespace tilec::runtime {

inline constexpr uint8_t kDLFloat8E4M3fnCode = 10;  // DLPack 1.1 kDLFloat8_e4m3fn
inline constexpr uint8_t kDLFloat8E5M2Code = 12;    // DLPack 1.1 kDLFloat8_e5m2

DLDataType to_dl_dtype(ir::DataType dtype);
// nullopt for codes tile IR has no dtype for (complex, opaque handles).
std::optional<ir::DataType> from_dl_dtype(DLDataType dtype);
// "float32", or "code=5 bits=64 lanes=1" for types tile IR cannot name.
std::string dl_dtype_str(DLDataType dtype);

class DLTensorView {
 public:
  DLTensorView(void* data, ir::DataType dtype, std::vector<int64_t> shape);
  // The DLTensor points into this object: moving keeps it valid, copying would not.
  DLTensorView(DLTensorView&&) noexcept = default;
  DLTensorView& operator=(DLTensorView&&) noexcept = default;
  DLTensorView(const DLTensorView&) = delete;
  DLTensorView& operator=(const DLTensorView&) = delete;

  DLTensor* get() { return &tensor_; }
  const DLTensor* get() const { return &tensor_; }
  const std::vector<int64_t>& shape() const { return shape_; }

 private:
  std::vector<int64_t> shape_;
  DLTensor tensor_;
};

inline TilecArg tensor_arg(DLTensor* tensor) {
  TilecArg arg{};
  arg.kind = kTilecArgTensor;
  arg.v.tensor = tensor;
  return arg;
}
inline TilecArg int_arg(int64_t value) {
  TilecArg arg{};
  arg.kind = kTilecArgInt;
  arg.v.i = value;
  return arg;
}
inline TilecArg float_arg(double value) {
  TilecArg arg{};
  arg.kind = kTilecArgFloat;
  arg.v.f = value;
  return arg;
}

}  // namespace tilec::runtime
