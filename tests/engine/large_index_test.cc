// Tensors just past 2^31 elements (int8, 2 GiB, so memory allows it): the compiled
// kernel indexes them in int64 and writes every element where the kernel says, and
// the host entry rejects a symbolic extent the kernel's index type cannot hold. Few
// and fast on purpose: each test touches one 2 GiB buffer once.
#include "test_support.h"
#include "tilec/frontend/parser.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace tilec {
namespace {

using testing::EngineTest;

constexpr int64_t kPastInt32 = (int64_t(1) << 31) + 1024;

constexpr const char* kIota = R"(import tilelang.language as T

N = 4096
block_N = 1024


@T.prim_func
def iota_mod(C: T.Tensor((N,), "int8")):
    with T.Kernel(T.ceildiv(N, block_N), threads=128) as bx:
        for i in T.Parallel(block_N):
            idx = bx * block_N + i
            if idx < N:
                C[idx] = T.cast(idx % 97, "int8")
)";

constexpr const char* kSymbolicCopy = R"(import tilelang.language as T

N = T.symbolic("N")


@T.prim_func
def copy(A: T.Tensor((N,), "int8"), B: T.Tensor((N,), "int8")):
    with T.Kernel(T.ceildiv(N, 1024), threads=128) as bx:
        for i in T.Parallel(1024):
            if bx * 1024 + i < N:
                B[bx * 1024 + i] = A[bx * 1024 + i]
)";

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

class LargeIndex : public EngineTest {};

TEST_F(LargeIndex, EveryElementPastTwoToTheThirtyOneIsWrittenWhereTheKernelSays) {
  ir::IRModule mod = ir::parse_kernel_source(
      kIota, {.filename = "iota.py", .defines = {{"N", std::to_string(kPastInt32)}}});
  Kernel kernel = compile(mod, "c");
  std::unique_ptr<int8_t, FreeDeleter> data(static_cast<int8_t*>(std::malloc(size_t(kPastInt32))));
  ASSERT_NE(data, nullptr) << "cannot allocate 2 GiB for the test";
  std::memset(data.get(), -1, size_t(kPastInt32));
  kernel.call_raw({RawTensor{data.get(), {kPastInt32}}});
  // Compared a chunk at a time against the expected pattern with memcmp (chunks start at
  // multiples of 97, so one pattern fits every chunk), element by element only inside a
  // chunk that differs: 2^31 single-byte compares in test code would take most of this
  // test's time in the sanitized run, whose test sources are unoptimized.
  constexpr int64_t kChunk = 97 * 65536;
  std::vector<int8_t> pattern(kChunk);
  for (int64_t i = 0; i < kChunk; ++i) pattern[size_t(i)] = int8_t(i % 97);
  int64_t wrong = 0, first_wrong = -1;
  for (int64_t start = 0; start < kPastInt32; start += kChunk) {
    int64_t length = std::min(kChunk, kPastInt32 - start);
    if (std::memcmp(data.get() + start, pattern.data(), size_t(length)) == 0) continue;
    for (int64_t i = start; i < start + length; ++i) {
      if (data.get()[i] != int8_t(i % 97)) {
        if (first_wrong < 0) first_wrong = i;
        ++wrong;
      }
    }
  }
  EXPECT_EQ(wrong, 0) << "first wrong element at " << first_wrong;
}

TEST_F(LargeIndex, TheHostEntryRejectsASymbolicExtentItsIndexTypeCannotHold) {
  ir::IRModule mod = ir::parse_kernel_source(kSymbolicCopy, {.filename = "copy.py", .defines = {}});
  Kernel kernel = compile(mod, "c");
  // Never touched: the entry must reject the shape before reading anything.
  std::unique_ptr<int8_t, FreeDeleter> a(static_cast<int8_t*>(std::malloc(size_t(kPastInt32))));
  std::unique_ptr<int8_t, FreeDeleter> b(static_cast<int8_t*>(std::malloc(size_t(kPastInt32))));
  ASSERT_TRUE(a && b);
  try {
    kernel.call_raw({RawTensor{a.get(), {kPastInt32}}, RawTensor{b.get(), {kPastInt32}}});
    FAIL() << "expected the host entry to reject N = " << kPastInt32;
  } catch (const std::exception& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("out of range for dimension 'N'"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(kPastInt32)), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tilec
