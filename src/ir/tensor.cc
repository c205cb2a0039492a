#include "tilec/ir/tensor.h"

#include <algorithm>
#include <limits>

#include "tilec/ir/expr.h"
#include "tilec/ir/float16.h"
#include "tilec/ir/float8.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace tilec::ir {

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string TensorView::str() const {
  return fmt::format("{}[{}]", dtype.str(), fmt::join(shape, ", "));
}

namespace {

template <class T>
T load(const void* data, int64_t flat) {
  T v;
  std::memcpy(&v, static_cast<const char*>(data) + flat * int64_t(sizeof(T)), sizeof(T));
  return v;
}
template <class T>
void save(void* data, int64_t flat, T v) {
  std::memcpy(static_cast<char*>(data) + flat * int64_t(sizeof(T)), &v, sizeof(T));
}

[[noreturn]] void unsupported(DataType dtype) {
  throw IRError("tensor element access does not support dtype " + dtype.str() +
                "; supported: " + std::string(supported_dtype_names()) + " without lanes");
}

}  // namespace

int64_t wrap_to_dtype(int64_t value, DataType dtype) {
  if (dtype.is_bool()) return value != 0;
  if (dtype.bits >= 64) return value;
  uint64_t mask = (uint64_t(1) << dtype.bits) - 1;
  uint64_t low = uint64_t(value) & mask;
  if (dtype.is_uint()) return int64_t(low);
  uint64_t sign = uint64_t(1) << (dtype.bits - 1);
  return int64_t((low ^ sign) - sign);
}

int64_t float_to_integer(double value, DataType dtype) {
  if (dtype.is_bool()) return value != 0 && !std::isnan(value);
  if (std::isnan(value)) return 0;
  double t = std::trunc(value);
  if (dtype.is_uint() && dtype.bits == 64) {
    if (t <= 0) return 0;
    if (t >= 18446744073709551616.0) return -1;  // all ones: the largest uint64
    return int64_t(uint64_t(t));
  }
  if (t >= 9223372036854775808.0) return wrap_to_dtype(INT64_MAX, dtype);
  if (t < -9223372036854775808.0) return wrap_to_dtype(INT64_MIN, dtype);
  return wrap_to_dtype(int64_t(t), dtype);
}

double read_as_double(const void* data, DataType dtype, int64_t flat) {
  switch (dtype.code) {
    case TypeCode::kBool:
      return load<uint8_t>(data, flat) != 0;
    case TypeCode::kBFloat:
      return bfloat16_to_double_inline(load<uint16_t>(data, flat));
    case TypeCode::kFloat8E4M3:
    case TypeCode::kFloat8E5M2:
      return float8_to_double(load<uint8_t>(data, flat), dtype);
    case TypeCode::kFloat:
      if (dtype.bits == 16) return half_to_double_inline(load<uint16_t>(data, flat));
      if (dtype.bits == 32) return load<float>(data, flat);
      if (dtype.bits == 64) return load<double>(data, flat);
      break;
    case TypeCode::kUInt:
      if (dtype.bits == 64) return double(load<uint64_t>(data, flat));
      return double(read_as_int(data, dtype, flat));
    case TypeCode::kInt:
      return double(read_as_int(data, dtype, flat));
  }
  unsupported(dtype);
}

int64_t read_as_int(const void* data, DataType dtype, int64_t flat) {
  switch (dtype.code) {
    case TypeCode::kBool:
      return load<uint8_t>(data, flat) != 0;
    case TypeCode::kInt:
      switch (dtype.bits) {
        case 8:
          return load<int8_t>(data, flat);
        case 16:
          return load<int16_t>(data, flat);
        case 32:
          return load<int32_t>(data, flat);
        case 64:
          return load<int64_t>(data, flat);
      }
      break;
    case TypeCode::kUInt:
      switch (dtype.bits) {
        case 8:
          return load<uint8_t>(data, flat);
        case 16:
          return load<uint16_t>(data, flat);
        case 32:
          return load<uint32_t>(data, flat);
        case 64:
          return int64_t(load<uint64_t>(data, flat));
      }
      break;
    case TypeCode::kFloat:
    case TypeCode::kBFloat:
    case TypeCode::kFloat8E4M3:
    case TypeCode::kFloat8E5M2:
      return float_to_integer(read_as_double(data, dtype, flat), DataType::Int64());
  }
  unsupported(dtype);
}

void write_double(void* data, DataType dtype, int64_t flat, double value) {
  switch (dtype.code) {
    case TypeCode::kBFloat:
      return save<uint16_t>(data, flat, double_to_bfloat16_inline(value));
    case TypeCode::kFloat8E4M3:
    case TypeCode::kFloat8E5M2:
      return save<uint8_t>(data, flat, double_to_float8(value, dtype));
    case TypeCode::kFloat:
      if (dtype.bits == 16) return save<uint16_t>(data, flat, double_to_half_inline(value));
      if (dtype.bits == 32) return save<float>(data, flat, float(round_to_dtype(value, dtype)));
      if (dtype.bits == 64) return save<double>(data, flat, value);
      break;
    default:
      return write_int(data, dtype, flat, float_to_integer(value, dtype));
  }
  unsupported(dtype);
}

void write_int(void* data, DataType dtype, int64_t flat, int64_t value) {
  switch (dtype.code) {
    case TypeCode::kBool:
      return save<uint8_t>(data, flat, value != 0);
    case TypeCode::kInt:
    case TypeCode::kUInt:
      switch (dtype.bits) {
        case 8:
          return save<uint8_t>(data, flat, uint8_t(value));
        case 16:
          return save<uint16_t>(data, flat, uint16_t(value));
        case 32:
          return save<uint32_t>(data, flat, uint32_t(value));
        case 64:
          return save<uint64_t>(data, flat, uint64_t(value));
      }
      break;
    case TypeCode::kFloat:
    case TypeCode::kBFloat:
    case TypeCode::kFloat8E4M3:
    case TypeCode::kFloat8E5M2: {
      double v = dtype.is_uint() ? double(uint64_t(value)) : double(value);
      return write_double(data, dtype, flat, v);
    }
  }
  unsupported(dtype);
}

void HostTensor::Free::operator()(void* p) const {
  std::free(p);
}

HostTensor::HostTensor(DataType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  if (!dtype.is_scalar()) {
    throw IRError("HostTensor holds scalar elements; got vector dtype " + dtype.str() +
                  ": use a trailing dimension of " + std::to_string(dtype.lanes) + " instead");
  }
  int64_t numel = 1;
  for (auto d : shape_) {
    if (d < 0) {
      throw IRError(fmt::format("HostTensor shape [{}] has a negative extent; extents must be >= 0",
                                fmt::join(shape_, ", ")));
    }
    if (d != 0 && numel > (int64_t(1) << 62) / d / dtype.bytes()) {
      throw IRError(fmt::format("HostTensor shape [{}] of {} is too large to allocate",
                                fmt::join(shape_, ", "), dtype.str()));
    }
    numel *= d;
  }
  size_t bytes = std::max<size_t>(64, (view().nbytes() + 63) / 64 * 64);
  storage_.reset(std::aligned_alloc(64, bytes));
  if (!storage_)
    throw IRError(fmt::format("cannot allocate {} bytes for tensor {}", bytes, view().str()));
  std::memset(storage_.get(), 0, bytes);
}

HostTensor::HostTensor(const HostTensor& other) : HostTensor(other.dtype_, other.shape_) {
  std::memcpy(storage_.get(), other.storage_.get(), view().nbytes());
}

HostTensor& HostTensor::operator=(const HostTensor& other) {
  if (this != &other) *this = HostTensor(other);
  return *this;
}

int64_t HostTensor::numel() const {
  return view().numel();
}

double HostTensor::get(int64_t flat) const {
  if (flat < 0 || flat >= numel())
    throw IRError(
        fmt::format("element {} is outside tensor {} ({} elements)", flat, view().str(), numel()));
  return read_as_double(storage_.get(), dtype_, flat);
}

void HostTensor::set(int64_t flat, double value) {
  if (flat < 0 || flat >= numel())
    throw IRError(
        fmt::format("element {} is outside tensor {} ({} elements)", flat, view().str(), numel()));
  write_double(storage_.get(), dtype_, flat, value);
}

void fill_random(const TensorView& tensor, uint64_t seed) {
  uint64_t state = seed;
  auto next = [&state] {  // splitmix64: fixed arithmetic, identical everywhere
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  DataType t = tensor.dtype;
  int64_t n = tensor.numel();
  auto uniform = [](uint64_t r) { return double(r >> 11) * 0x1p-52 - 1.0; };  // [-1, 1)
  // The common float dtypes stored inline: write_double's values without its dispatch per
  // element (large random inputs are a visible part of `tilec interp`).
  auto fill_as = [&](auto encode) {
    for (int64_t i = 0; i < n; ++i) save(tensor.data, i, encode(uniform(next())));
  };
  if (t == DataType::BFloat16()) return fill_as(double_to_bfloat16_inline);
  if (t == DataType::Float16()) return fill_as(double_to_half_inline);
  if (t == DataType::Float32()) return fill_as([](double v) { return float(v); });
  for (int64_t i = 0; i < n; ++i) {
    uint64_t r = next();
    if (t.is_float()) {
      write_double(tensor.data, t, i, uniform(r));
    } else if (t.is_bool()) {
      write_int(tensor.data, t, i, int64_t(r & 1));
    } else if (t.is_uint()) {
      write_int(tensor.data, t, i, int64_t(r % 16));
    } else {
      write_int(tensor.data, t, i, int64_t(r % 17) - 8);
    }
  }
}

void fill_random_indices(const TensorView& tensor, uint64_t seed, int64_t bound) {
  DataType t = tensor.dtype;
  int64_t top = t.bits >= 64
                    ? std::numeric_limits<int64_t>::max()
                    : (t.is_uint() ? (int64_t(1) << t.bits) - 1 : (int64_t(1) << (t.bits - 1)) - 1);
  uint64_t range = uint64_t(std::max<int64_t>(1, bound));
  if (t.bits < 64) range = std::min<uint64_t>(range, uint64_t(top) + 1);
  uint64_t state = seed;
  for (int64_t i = 0, n = tensor.numel(); i < n; ++i) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);  // splitmix64, as fill_random
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    write_int(tensor.data, t, i, int64_t((z ^ (z >> 31)) % range));
  }
}

Tolerance tolerance_for(DataType dtype) {
  if (dtype.is_bfloat16()) return {2e-2, 2e-2};
  // One unit in the last place of float8 (2^-3 of the value for e4m3, 2^-2 for e5m2): a
  // float32 sum taken in another order may round to the neighbouring float8 value.
  if (dtype.code == TypeCode::kFloat8E4M3) return {1.3e-1, 2e-2};
  if (dtype.code == TypeCode::kFloat8E5M2) return {2.6e-1, 2e-2};
  if (!dtype.is_float()) return {0, 0};
  switch (dtype.bits) {
    case 16:
      return {1e-2, 1e-2};
    case 32:
      return {1e-4, 1e-5};
    default:
      return {1e-9, 1e-9};
  }
}

namespace {
std::string index_str(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return fmt::format("[{}]", fmt::join(idx, ", "));
}
}  // namespace

CompareResult compare_tensors(const TensorView& actual, const TensorView& expected) {
  CompareResult r;
  if (actual.dtype != expected.dtype || actual.shape != expected.shape) {
    r.ok = false;
    r.mismatches = 1;
    r.first_mismatch = "actual tensor is " + actual.str() + " but expected " + expected.str();
    return r;
  }
  Tolerance tol = tolerance_for(expected.dtype);
  bool exact_ints = !expected.dtype.is_float();
  int64_t n = expected.numel();
  for (int64_t i = 0; i < n; ++i) {
    double a, e, err;
    bool match;
    if (exact_ints) {
      int64_t ai = read_as_int(actual.data, actual.dtype, i);
      int64_t ei = read_as_int(expected.data, expected.dtype, i);
      match = ai == ei;
      a = double(ai);
      e = double(ei);
      err = std::fabs(a - e);
    } else {
      a = read_as_double(actual.data, actual.dtype, i);
      e = read_as_double(expected.data, expected.dtype, i);
      if (std::isnan(a) || std::isnan(e)) {
        match = std::isnan(a) && std::isnan(e);
        err = match ? 0 : INFINITY;
      } else if (std::isinf(a) || std::isinf(e)) {
        match = a == e;
        err = match ? 0 : INFINITY;
      } else {
        err = std::fabs(a - e);
        match = err <= tol.atol + tol.rtol * std::fabs(e);
      }
    }
    r.max_abs_err = std::max(r.max_abs_err, err);
    if (e != 0 && !std::isnan(err)) r.max_rel_err = std::max(r.max_rel_err, err / std::fabs(e));
    if (!match) {
      if (r.mismatches == 0) {
        r.first_mismatch = fmt::format(
            "at {} (flat {}): actual {} but expected {} (|diff| {:g} > allowed {:g} for {})",
            index_str(i, expected.shape), i, a, e, err, tol.atol + tol.rtol * std::fabs(e),
            expected.dtype.str());
      }
      ++r.mismatches;
      r.ok = false;
    }
  }
  return r;
}

uint64_t tensor_checksum(const TensorView& tensor) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](const void* p, size_t n) {
    auto* bytes = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
      h ^= bytes[i];
      h *= 0x100000001b3ull;
    }
  };
  std::string dtype = tensor.dtype.str();
  mix(dtype.data(), dtype.size());
  for (int64_t d : tensor.shape) {
    unsigned char le[8];
    for (int b = 0; b < 8; ++b) le[b] = uint64_t(d) >> (8 * b) & 0xff;
    mix(le, 8);
  }
  mix(tensor.data, tensor.nbytes());
  return h;
}

}  // namespace tilec::ir
