// CodeGenHIP's source and the emulated runs the e2e suites do not single out: the gemm
// on gfx90a goes to MFMA (float16 and bfloat16, the `_1k` form) and matches the
// interpreter on the emulator at wavefront 64; gfx908 has no bfloat16 `_1k` MFMA and
// gfx1030 none at all (the SIMT gemm); reductions are __shfl_xor butterflies over the
// wavefront without lane masks; a kernel above the 64 KiB of LDS is refused, naming it.
#include "../engine/test_support.h"
#include "tilec/exec/emulator.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

namespace tilec {
namespace {

namespace fs = std::filesystem;

fs::path example(const char* name) {
  return fs::path(TILEC_SOURCE_DIR) / "examples" / name;
}

class RocmEmulator : public testing::EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    initialize();
    auto emulator = exec::get_execution_backend(exec::kEmulatorBackendName);
    if (!emulator->available()) GTEST_SKIP() << emulator->unavailable_reason();
  }
  Kernel build(const char* file, const std::string& target,
               std::map<std::string, std::string> defines = {}) {
    mod_ = ir::parse_kernel_file(example(file).string(), defines);
    return compile(mod_, target, std::nullopt, exec::kEmulatorBackendName,
                   {{exec::kEmulatorRaceCheckConfigKey, true}});
  }
  void expect_matches(const Kernel& kernel) {
    for (const auto& func : mod_.functions()) {
      auto result = testing::run_and_compare(kernel, func);
      EXPECT_TRUE(result.ok) << func->name << ": " << result.detail;
    }
  }
  ir::IRModule mod_;
};

TEST_F(RocmEmulator, GemmRunsOnMfmaInBothHalfDtypes) {
  for (const char* dtype : {"float16", "bfloat16"}) {
    SCOPED_TRACE(dtype);
    Kernel kernel = build("gemm.py", "hip -mcpu=gfx90a", {{"dtype", dtype}});
    std::string mfma = std::string("tilec_mfma_f32_16x16x16_") +
                       (std::string(dtype) == "float16" ? "f16" : "bf16") + "(";
    EXPECT_NE(kernel.device_source().find(mfma), std::string::npos) << kernel.device_source();
    expect_matches(kernel);
  }
}

TEST_F(RocmEmulator, ArchsWithoutTheMfmaFormTakeTheSimtGemm) {
  Kernel gfx908 = build("gemm.py", "hip -mcpu=gfx908", {{"dtype", "bfloat16"}});
  EXPECT_EQ(gfx908.device_source().find("tilec_mfma_f32_16x16x16_bf16("), std::string::npos);
  expect_matches(gfx908);
  Kernel rdna = build("gemm.py", "hip -mcpu=gfx1030");
  EXPECT_EQ(rdna.device_source().find("tilec_mfma_"), std::string::npos);
  EXPECT_NE(rdna.device_source().find("wavefront 32"), std::string::npos);
  expect_matches(rdna);
}

TEST_F(RocmEmulator, ReductionsShuffleOverTheWavefront) {
  for (const char* arch : {"gfx90a", "gfx1030"}) {
    SCOPED_TRACE(arch);
    Kernel kernel = build("softmax.py", std::string("hip -mcpu=") + arch);
    const std::string& source = kernel.device_source();
    EXPECT_NE(source.find("__shfl_xor(v, offset, TILEC_WAVEFRONT)"), std::string::npos) << source;
    EXPECT_EQ(source.find("__shfl_xor_sync"), std::string::npos);
    EXPECT_NE(source.find(std::string("#define TILEC_WAVEFRONT ") +
                          (std::string(arch) == "gfx90a" ? "64" : "32")),
              std::string::npos);
    expect_matches(kernel);
  }
}

TEST_F(RocmEmulator, MoreSharedMemoryThanLdsIsRefused) {
  // reduce_sum.py's shared tile and its reduction's staged copy share storage (the copy
  // is made after the tile's last read), so block_M=32 fits 64 KiB; at 64 the tile alone
  // is 64 KiB.
  expect_matches(build("reduce_sum.py", "hip -mcpu=gfx90a"));
  try {
    build("reduce_sum.py", "hip -mcpu=gfx90a", {{"block_M", "64"}});
    ADD_FAILURE() << "reduce_sum.py at block_M=64 needs more than 64 KiB of LDS";
  } catch (const std::exception& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("bytes of shared memory (LDS)"), std::string::npos) << what;
    EXPECT_NE(what.find("64 KiB"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tilec
