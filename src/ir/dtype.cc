#include "tilec/ir/dtype.h"

#include <charconv>

namespace tilec::ir {

std::string DataType::str() const {
  std::string base;
  switch (code) {
    case TypeCode::kBool: base = "bool"; break;
    case TypeCode::kInt: base = "int" + std::to_string(bits); break;
    case TypeCode::kUInt: base = "uint" + std::to_string(bits); break;
    case TypeCode::kFloat: base = "float" + std::to_string(bits); break;
    case TypeCode::kBFloat: base = "bfloat" + std::to_string(bits); break;
    case TypeCode::kFloat8E4M3:
      base = "float8_e4m3";
      break;
    case TypeCode::kFloat8E5M2:
      base = "float8_e5m2";
      break;
  }
  if (lanes != 1) base += "x" + std::to_string(lanes);
  return base;
}

std::optional<DataType> DataType::parse(std::string_view text) {
  int lanes = 1;
  if (auto x = text.rfind('x'); x != std::string_view::npos && x + 1 < text.size()) {
    auto tail = text.substr(x + 1);
    auto [ptr, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), lanes);
    if (ec != std::errc() || ptr != tail.data() + tail.size() || lanes < 1 || lanes > 64)
      return std::nullopt;
    text = text.substr(0, x);
  }
  std::optional<DataType> base;
  if (text == "bool") base = Bool();
  else if (text == "float" || text == "float32") base = Float(32);
  else if (text == "half" || text == "float16") base = Float(16);
  else if (text == "double" || text == "float64") base = Float(64);
  else if (text == "bfloat16") base = BFloat16();
  // TileLang's and TVM's spellings of the same two formats (TVM's e4m3 is "fn").
  else if (text == "float8_e4m3" || text == "float8_e4m3fn" || text == "e4m3_float8")
    base = Float8E4M3();
  else if (text == "float8_e5m2" || text == "e5m2_float8")
    base = Float8E5M2();
  else if (text == "int" || text == "int32") base = Int(32);
  else if (text == "int8") base = Int(8);
  else if (text == "int16") base = Int(16);
  else if (text == "int64") base = Int(64);
  else if (text == "uint8") base = UInt(8);
  else if (text == "uint16") base = UInt(16);
  else if (text == "uint32") base = UInt(32);
  else if (text == "uint64") base = UInt(64);
  if (!base) return std::nullopt;
  return base->with_lanes(lanes);
}

std::string_view supported_dtype_names() {
  return "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, "
         "float8_e4m3 (= float8_e4m3fn), float8_e5m2, float32, float64 (optionally with lanes, "
         "e.g. float32x4)";
}

}  // namespace tilec::ir
