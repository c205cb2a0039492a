#include "tilec/runtime/dlpack_tensor.h"

#include <fmt/format.h>

namespace tilec::runtime {

DLDataType to_dl_dtype(ir::DataType dtype) {
  DLDataType out{};
  out.bits = dtype.bits;
  out.lanes = dtype.lanes;
  switch (dtype.code) {
    case ir::TypeCode::kBool:
      out.code = kDLUInt;
      out.bits = 8;
      break;
    case ir::TypeCode::kInt:
      out.code = kDLInt;
      break;
    case ir::TypeCode::kUInt:
      out.code = kDLUInt;
      break;
    case ir::TypeCode::kFloat:
      out.code = kDLFloat;
      break;
    case ir::TypeCode::kBFloat:
      out.code = kDLBfloat;
      break;
    case ir::TypeCode::kFloat8E4M3:
      out.code = kDLFloat8E4M3fnCode;
      break;
    case ir::TypeCode::kFloat8E5M2:
      out.code = kDLFloat8E5M2Code;
      break;
  }
  return out;
}

std::optional<ir::DataType> from_dl_dtype(DLDataType dtype) {
  ir::DataType out;
  out.bits = dtype.bits;
  out.lanes = dtype.lanes;
  switch (dtype.code) {
    case kDLInt:
      out.code = ir::TypeCode::kInt;
      break;
    case kDLUInt:
      out.code = dtype.bits == 1 ? ir::TypeCode::kBool : ir::TypeCode::kUInt;
      break;
    case kDLFloat:
      out.code = ir::TypeCode::kFloat;
      break;
    case kDLBfloat:
      out.code = ir::TypeCode::kBFloat;
      break;
    case kDLFloat8E4M3fnCode:
      out.code = ir::TypeCode::kFloat8E4M3;
      break;
    case kDLFloat8E5M2Code:
      out.code = ir::TypeCode::kFloat8E5M2;
      break;
    default:
      return std::nullopt;
  }
  return out;
}

std::string dl_dtype_str(DLDataType dtype) {
  if (auto known = from_dl_dtype(dtype)) return known->str();
  return fmt::format("code={} bits={} lanes={}", dtype.code, dtype.bits, dtype.lanes);
}

DLTensorView::DLTensorView(void* data, ir::DataType dtype, std::vector<int64_t> shape)
    : shape_(std::move(shape)), tensor_{} {
  tensor_.data = data;
  tensor_.device = DLDevice{kDLCPU, 0};
  tensor_.ndim = int32_t(shape_.size());
  tensor_.dtype = to_dl_dtype(dtype);
  tensor_.shape = shape_.data();
  tensor_.strides = nullptr;  // DLPack: NULL strides mean compact row-major
  tensor_.byte_offset = 0;
}

}  // namespace tilec::runtime
