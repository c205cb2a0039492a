// NumPy .npy files (format versions 1.0 and 2.0, as documented in
// numpy/lib/format.py): little-endian, C order, dtypes bool, int8..int64,
// uint8..uint64, float16, float32, float64. read_npy returns an owning tensor;
// anything else (big-endian, Fortran order, object or structured dtypes, a
// truncated file) throws IRError naming the file and what is wrong with it.
// write_npy writes version 1.0 (2.0 when the header needs it); NumPy has no float8, so
// float8 tensors are written as their uint8 bit patterns ("|u1").
#pragma once

#include "tilec/ir/tensor.h"

#include <string>

namespace tilec::ir {

HostTensor read_npy(const std::string& path);
void write_npy(const std::string& path, const TensorView& tensor);

// The .npy descr of `dtype` ("<f4", "|b1", ...); throws IRError for a dtype NumPy
// has no standard code for (bfloat16, vectors).
std::string npy_descr(DataType dtype);

}  // namespace tilec::ir
