// .npy files: what write_npy produces is byte-for-byte what numpy.save writes
// (header dict, padding to 64 bytes, version 1.0), read_npy reads it back for every
// supported dtype and rank, and malformed files are errors naming the file.
#include "tilec/ir/npy.h"

#include "tilec/ir/expr.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tilec::ir {
namespace {

namespace fs = std::filesystem;

// This process's directory of test files, removed when the process exits (CTest runs
// every test in its own process, so one directory per test would pile up in /tmp).
class TestDir {
 public:
  TestDir() : path_(fs::temp_directory_path() / ("tilec-npy-test-" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~TestDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

fs::path temp_file(const std::string& name) {
  static TestDir dir;
  return dir.path() / name;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// numpy.save(f, np.arange(3, dtype=np.float32)): 128 header bytes, then the data.
TEST(Npy, WritesWhatNumpyWrites) {
  HostTensor t(DataType::Float32(), {3});
  for (int i = 0; i < 3; ++i) t.set(i, i);
  fs::path p = temp_file("arange.npy");
  write_npy(p.string(), t.view());
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  std::string expected = std::string("\x93NUMPY\x01\x00", 8) + "v" + std::string(1, '\0') + dict +
                         std::string(117 - dict.size(), ' ') + "\n";
  float values[3] = {0, 1, 2};
  expected.append(reinterpret_cast<const char*>(values), sizeof(values));
  EXPECT_EQ(slurp(p), expected);
}

TEST(Npy, RoundTripsEveryDtypeAndRank) {
  std::vector<std::pair<DataType, std::vector<int64_t>>> cases = {
      {DataType::Float32(), {2, 3}}, {DataType::Float(64), {}},   {DataType::Float16(), {4, 1, 2}},
      {DataType::Int(8), {5}},       {DataType::Int(16), {2, 2}}, {DataType::Int32(), {0, 3}},
      {DataType::Int64(), {3}},      {DataType::UInt(8), {7}},    {DataType::UInt(64), {2}},
      {DataType::Bool(), {6}},
  };
  for (auto& [dtype, shape] : cases) {
    HostTensor t(dtype, shape);
    fill_random(t.view(), 11);
    fs::path p = temp_file("rt.npy");
    write_npy(p.string(), t.view());
    HostTensor back = read_npy(p.string());
    EXPECT_EQ(back.dtype(), dtype) << dtype.str();
    EXPECT_EQ(back.shape(), shape) << dtype.str();
    EXPECT_EQ(tensor_checksum(back.view()), tensor_checksum(t.view())) << dtype.str();
  }
}

TEST(Npy, BFloat16HasNoNumpyCode) {
  HostTensor t(DataType::BFloat16(), {2});
  EXPECT_THROW(write_npy(temp_file("bf.npy").string(), t.view()), IRError);
}

TEST(Npy, MalformedFilesNameTheFileAndTheProblem) {
  fs::path p = temp_file("bad.npy");
  std::ofstream(p, std::ios::binary) << "hello";
  try {
    read_npy(p.string());
    FAIL() << "expected an error";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.npy"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("magic"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_npy(temp_file("missing.npy").string()), IRError);
}

}  // namespace
}  // namespace tilec::ir
