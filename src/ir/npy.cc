#include "tilec/ir/npy.h"

#include "tilec/ir/expr.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

namespace tilec::ir {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy I/O assumes a little-endian host");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

[[noreturn]] void bad_file(const std::string& path, const std::string& why) {
  throw IRError(fmt::format("cannot read '{}' as a NumPy .npy file: {}", path, why));
}

DataType dtype_of_descr(const std::string& path, const std::string& descr) {
  if (descr.size() < 3) bad_file(path, "unsupported dtype '" + descr + "'");
  char order = descr[0], kind = descr[1];
  int bytes = 0;
  try {
    bytes = std::stoi(descr.substr(2));
  } catch (const std::exception&) {
    bad_file(path, "unsupported dtype '" + descr + "'");
  }
  if (order == '>' && bytes > 1)
    bad_file(path, "dtype '" + descr + "' is big-endian; save it little-endian (array.astype('<" +
                       descr.substr(1) + "'))");
  if (kind == 'b' && bytes == 1) return DataType::Bool();
  if (kind == 'i' && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8))
    return DataType::Int(bytes * 8);
  if (kind == 'u' && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8))
    return DataType::UInt(bytes * 8);
  if (kind == 'f' && (bytes == 2 || bytes == 4 || bytes == 8)) return DataType::Float(bytes * 8);
  bad_file(path, "unsupported dtype '" + descr +
                     "'; supported: bool, int8..int64, uint8..uint64, float16, float32, float64");
}

}  // namespace

std::string npy_descr(DataType dtype) {
  if (dtype.lanes != 1) throw IRError("no .npy dtype for vector type " + dtype.str());
  if (dtype.is_bfloat16())
    throw IRError(
        "NumPy has no standard .npy dtype for bfloat16; convert the tensor to float32 "
        "first");
  if (dtype.is_bool()) return "|b1";
  // NumPy has no float8: the file holds the bit patterns as uint8 (ml_dtypes users view
  // them with a.view(ml_dtypes.float8_e4m3fn)).
  if (dtype.is_float8()) return "|u1";
  char kind = dtype.is_int() ? 'i' : dtype.is_uint() ? 'u' : dtype.is_float() ? 'f' : '?';
  if (kind == '?')
    throw IRError("NumPy has no standard .npy dtype for " + dtype.str() +
                  "; convert the tensor to float32 first");
  return fmt::format("{}{}{}", dtype.bits == 8 ? '|' : '<', kind, dtype.bits / 8);
}

HostTensor read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad_file(path, "the file does not exist or is not readable");
  char magic[kMagicSize];
  if (!in.read(magic, kMagicSize) || std::memcmp(magic, kMagic, kMagicSize) != 0)
    bad_file(path, "it does not start with the .npy magic string (\\x93NUMPY)");
  unsigned char version[2];
  if (!in.read(reinterpret_cast<char*>(version), 2)) bad_file(path, "the header is truncated");
  size_t header_len = 0;
  if (version[0] == 1) {
    unsigned char n[2];
    if (!in.read(reinterpret_cast<char*>(n), 2)) bad_file(path, "the header is truncated");
    header_len = size_t(n[0]) | size_t(n[1]) << 8;
  } else if (version[0] == 2 || version[0] == 3) {
    unsigned char n[4];
    if (!in.read(reinterpret_cast<char*>(n), 4)) bad_file(path, "the header is truncated");
    header_len = size_t(n[0]) | size_t(n[1]) << 8 | size_t(n[2]) << 16 | size_t(n[3]) << 24;
  } else {
    bad_file(path, fmt::format("format version {}.{} is not supported (1.0 and 2.0 are)",
                               int(version[0]), int(version[1])));
  }
  if (header_len > (1u << 20)) bad_file(path, "the header length is implausible");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), std::streamsize(header_len)))
    bad_file(path, "the header is truncated");

  static const std::regex descr_re(R"('descr'\s*:\s*'([^']*)')");
  static const std::regex fortran_re(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex shape_re(R"('shape'\s*:\s*\(([^)]*)\))");
  std::smatch m;
  if (!std::regex_search(header, m, descr_re)) bad_file(path, "the header has no 'descr'");
  DataType dtype = dtype_of_descr(path, m[1].str());
  if (!std::regex_search(header, m, fortran_re))
    bad_file(path, "the header has no 'fortran_order'");
  if (m[1].str() == "True")
    bad_file(path, "the array is in Fortran order; save it in C order (np.ascontiguousarray)");
  if (!std::regex_search(header, m, shape_re)) bad_file(path, "the header has no 'shape'");
  std::vector<int64_t> shape;
  std::stringstream dims(m[1].str());
  for (std::string item; std::getline(dims, item, ',');) {
    size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \tL");
    if (b == std::string::npos) continue;
    std::string digits = item.substr(b, e - b + 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
      bad_file(path, "the shape entry '" + digits + "' is not a non-negative integer");
    shape.push_back(std::stoll(digits));
  }
  HostTensor tensor(dtype, shape);
  auto bytes = std::streamsize(tensor.view().nbytes());
  if (bytes > 0 && !in.read(static_cast<char*>(tensor.data()), bytes))
    bad_file(path, fmt::format("the data is truncated: {} {} needs {} bytes", dtype.str(),
                               tensor.view().str(), bytes));
  return tensor;
}

void write_npy(const std::string& path, const TensorView& tensor) {
  std::string shape = fmt::format("{}", fmt::join(tensor.shape, ", "));
  if (tensor.shape.size() == 1) shape += ",";  // a Python 1-tuple: (3,)
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                   npy_descr(tensor.dtype), shape);
  bool v2 = header.size() + 1 + kMagicSize + 4 > 65535;
  size_t prefix = kMagicSize + 2 + (v2 ? 4 : 2);
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw IRError("cannot write '" + path + "': the directory is missing or not writable");
  out.write(kMagic, kMagicSize);
  out.put(char(v2 ? 2 : 1)).put(0);
  size_t n = header.size();
  if (v2) {
    for (int i = 0; i < 4; ++i) out.put(char((n >> (8 * i)) & 0xff));
  } else {
    out.put(char(n & 0xff)).put(char((n >> 8) & 0xff));
  }
  out.write(header.data(), std::streamsize(n));
  out.write(static_cast<const char*>(tensor.data), std::streamsize(tensor.nbytes()));
  if (!out) throw IRError("writing '" + path + "' failed (disk full?)");
}

}  // namespace tilec::ir
