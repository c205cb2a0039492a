// Host tensors for the interpreter, tests and the CLI: a non-owning TensorView
// (row-major, contiguous), an owning HostTensor, element conversion by dtype,
// deterministic random filling, tolerance-based comparison (docs/semantics.md) and a
// checksum. Float conversions round to nearest even; float-to-integer conversions
// truncate toward zero (NaN gives 0, out-of-range saturates to int64) and then wrap
// to the integer's width, as two's-complement hardware stores do.
#pragma once

#include "tilec/ir/dtype.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec::ir {

struct TensorView {
  void* data = nullptr;
  DataType dtype;
  std::vector<int64_t> shape;
  int64_t numel() const;
  size_t nbytes() const { return size_t(numel()) * size_t(dtype.bytes()); }
  std::string str() const;  // "float16[64, 128]"
};

// ---- one element at a flat index of storage of scalar dtype `dtype` ----
double read_as_double(const void* data, DataType dtype, int64_t flat);
int64_t read_as_int(const void* data, DataType dtype, int64_t flat);  // floats truncate
void write_double(void* data, DataType dtype, int64_t flat, double value);
void write_int(void* data, DataType dtype, int64_t flat, int64_t value);
// Integer/bool value `value` reduced to dtype's width (sign-extended for signed types;
// bool: 0 or 1). uint64 values travel as their int64 bit pattern.
int64_t wrap_to_dtype(int64_t value, DataType dtype);
// A float converted to integer/bool dtype by the rule in the header comment.
int64_t float_to_integer(double value, DataType dtype);

class HostTensor {
 public:
  // Zero-filled, 64-byte aligned storage. Throws IRError on a negative extent or a
  // vector (lanes > 1) dtype.
  HostTensor(DataType dtype, std::vector<int64_t> shape);
  HostTensor(const HostTensor& other);
  HostTensor& operator=(const HostTensor& other);
  HostTensor(HostTensor&&) noexcept = default;
  HostTensor& operator=(HostTensor&&) noexcept = default;

  TensorView view() const { return TensorView{storage_.get(), dtype_, shape_}; }
  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const;
  void* data() const { return storage_.get(); }
  double get(int64_t flat) const;  // throws IRError when flat is out of range
  void set(int64_t flat, double value);

 private:
  struct Free {
    void operator()(void* p) const;
  };
  DataType dtype_;
  std::vector<int64_t> shape_;
  std::unique_ptr<void, Free> storage_;
};

// Deterministic for (seed, dtype, numel) on every platform: floats uniform in
// [-1, 1) rounded to the dtype, signed ints in [-8, 8], unsigned in [0, 15], bools 0/1.
void fill_random(const TensorView& tensor, uint64_t seed);

// The integer tensor filled with values uniform in [0, bound) (bound clipped to the
// dtype's largest value + 1), deterministic like fill_random: data used as indices.
void fill_random_indices(const TensorView& tensor, uint64_t seed, int64_t bound);

// Per-dtype tolerance: |actual - expected| <= atol + rtol * |expected|.
//   float64  rtol 1e-9, atol 1e-9     float32  rtol 1e-4, atol 1e-5
//   float16  rtol 1e-2, atol 1e-2     bfloat16 rtol 2e-2, atol 2e-2
//   integers and bool: exact (0, 0)
// NaN matches only NaN; an infinity matches only the same infinity.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
Tolerance tolerance_for(DataType dtype);

struct CompareResult {
  bool ok = true;
  double max_abs_err = 0;
  double max_rel_err = 0;  // |actual - expected| / |expected| over nonzero expected
  int64_t mismatches = 0;
  std::string first_mismatch;  // empty when ok
};
// Dtypes and shapes must be equal (else ok = false with the reason in first_mismatch);
// elements are compared with the expected dtype's tolerance.
CompareResult compare_tensors(const TensorView& actual, const TensorView& expected);

// FNV-1a 64 over dtype, shape and the raw element bytes: equal for bitwise-equal
// tensors, the same on every run.
uint64_t tensor_checksum(const TensorView& tensor);

}  // namespace tilec::ir
