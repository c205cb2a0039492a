// DataType: the scalar (or short-vector) element type of every tile IR value.
// Spelled as TileLang spells it ("float16", "bfloat16", "float8_e4m3", "int32", "bool";
// "float32x4" for 4 lanes); parse(str()) round-trips. float8_e4m3 is OCP/TVM's e4m3fn
// (no infinities) and float8_e5m2 the IEEE-like e5m2 (src/ir/float8.cc, docs/semantics.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilec::ir {

enum class TypeCode : uint8_t { kBool, kInt, kUInt, kFloat, kBFloat, kFloat8E4M3, kFloat8E5M2 };

struct DataType {
  TypeCode code = TypeCode::kInt;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  static constexpr DataType Bool() { return {TypeCode::kBool, 1, 1}; }
  static constexpr DataType Int(int bits) { return {TypeCode::kInt, uint8_t(bits), 1}; }
  static constexpr DataType UInt(int bits) { return {TypeCode::kUInt, uint8_t(bits), 1}; }
  static constexpr DataType Float(int bits) { return {TypeCode::kFloat, uint8_t(bits), 1}; }
  static constexpr DataType BFloat16() { return {TypeCode::kBFloat, 16, 1}; }
  static constexpr DataType Float8E4M3() { return {TypeCode::kFloat8E4M3, 8, 1}; }
  static constexpr DataType Float8E5M2() { return {TypeCode::kFloat8E5M2, 8, 1}; }
  static constexpr DataType Int32() { return Int(32); }
  static constexpr DataType Int64() { return Int(64); }
  static constexpr DataType Float32() { return Float(32); }
  static constexpr DataType Float16() { return Float(16); }

  bool is_bool() const { return code == TypeCode::kBool; }
  bool is_int() const { return code == TypeCode::kInt; }
  bool is_uint() const { return code == TypeCode::kUInt; }
  bool is_integer() const { return is_int() || is_uint(); }  // bool excluded
  bool is_float() const {
    return code == TypeCode::kFloat || code == TypeCode::kBFloat || is_float8();
  }
  bool is_bfloat16() const { return code == TypeCode::kBFloat; }
  bool is_float8() const { return code == TypeCode::kFloat8E4M3 || code == TypeCode::kFloat8E5M2; }
  // Floats narrower than float32 (float16, bfloat16, float8): stored as their bits and
  // computed in float32, rounded back after every operation.
  bool is_narrow_float() const { return is_float() && bits < 32; }
  bool is_scalar() const { return lanes == 1; }
  // Storage size of one element (lanes included); bool is stored as one byte.
  int bytes() const { return (is_bool() ? 1 : bits / 8) * lanes; }
  DataType with_lanes(int n) const { return {code, bits, uint16_t(n)}; }
  DataType element_of() const { return with_lanes(1); }

  std::string str() const;
  // Accepts TileLang spellings plus "float"/"int"/"half" aliases; nullopt if unknown.
  static std::optional<DataType> parse(std::string_view text);

  friend bool operator==(const DataType&, const DataType&) = default;
};

// Every dtype name parse() accepts, for error messages ("expected one of ...").
std::string_view supported_dtype_names();

}  // namespace tilec::ir
