// Every example compiles to a gfx90a code object through hiprtc (in process) and through
// hipcc (a process, about a second per kernel); the gemm example's code
// object's disassembly (Debian's llvm-objdump-15) shows the MFMA instructions. Running
// through either on a machine without an AMD GPU fails saying "no HIP device" and naming
// the emulator. Tests skip, saying why, where hiprtc, hipcc or llvm-objdump is missing
// (scripts/setup.sh installs hipcc, which brings the runtime and hiprtc).
#include "../cli_support.h"
#include "../engine/test_support.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"
#include "tilec/rocm/hip_backends.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace tilec::rocm {
namespace {

namespace fs = std::filesystem;

constexpr const char* kGfx90a = "hip -mcpu=gfx90a";
constexpr const char* kObjdump = "llvm-objdump-15";

class HipBuild : public testing::EngineTest {
 public:
  void SetUp() override {
    EngineTest::SetUp();
    initialize();
  }
  void skip_unless(const char* backend) {
    auto b = exec::get_execution_backend(backend);
    if (!b->available()) GTEST_SKIP() << b->unavailable_reason();
  }
  // Compiles `file` for gfx90a through `backend`; the code object's path.
  fs::path code_object(const fs::path& file, const char* backend,
                       std::map<std::string, std::string> defines = {}) {
    ir::IRModule mod = ir::parse_kernel_file(file.string(), std::move(defines));
    Kernel kernel = compile(mod, kGfx90a, std::nullopt, backend);
    EXPECT_EQ(kernel.execution_backend(), backend);
    return kernel.library_path().parent_path() / kCodeObjectFileName;
  }
};

using HipBuildFixture = HipBuild;

std::string disassemble(const fs::path& object) {
  exec::ProcessResult r = exec::run_process({kObjdump, "-d", object.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}

bool is_amdgpu_elf(const fs::path& object) {
  std::ifstream in(object, std::ios::binary);
  char header[20] = {};
  in.read(header, sizeof header);
  // ELF magic, then e_machine (bytes 18-19, little endian) EM_AMDGPU = 224.
  return in &&
         std::string(header, 4) ==
             "\x7f"
             "ELF" &&
         uint8_t(header[18]) == 224 && header[19] == 0;
}

// Every example builds to a gfx90a AMDGPU code object through `backend`.
void every_example_builds(HipBuildFixture& test, const char* backend) {
  fs::path dir = fs::path(TILEC_SOURCE_DIR) / "examples";
  int built = 0;
  for (const auto& item : fs::directory_iterator(dir)) {
    if (item.path().extension() != ".py") continue;
    SCOPED_TRACE(item.path().filename().string());
    fs::path object = test.code_object(item.path(), backend);
    EXPECT_TRUE(is_amdgpu_elf(object)) << object;
    ++built;
  }
  EXPECT_GT(built, 10);
}

TEST_F(HipBuild, EveryExampleCompilesThroughHiprtc) {
  skip_unless(kHiprtcBackendName);
  every_example_builds(*this, kHiprtcBackendName);
}

// hipcc is a process per kernel (about a second each).
TEST_F(HipBuild, EveryExampleCompilesThroughHipcc) {
  skip_unless(kHipccBackendName);
  every_example_builds(*this, kHipccBackendName);
}

TEST_F(HipBuild, GemmThroughHipccAndHiprtcRunsOnMfma) {
  skip_unless(kHipccBackendName);
  skip_unless(kHiprtcBackendName);
  if (exec::run_process({kObjdump, "--version"}).exit_code != 0)
    GTEST_SKIP() << kObjdump << " is not installed (Debian: apt-get install llvm-15)";
  fs::path gemm = fs::path(TILEC_SOURCE_DIR) / "examples" / "gemm.py";
  for (const char* backend : {kHipccBackendName, kHiprtcBackendName}) {
    SCOPED_TRACE(backend);
    fs::path object = code_object(gemm, backend);
    ASSERT_TRUE(is_amdgpu_elf(object)) << object;
    std::string text = disassemble(object);
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(v_mfma_f32_16x16x16f16)"))) << text;
  }
  // bfloat16 on gfx90a: the `_1k` form.
  fs::path bf16 = code_object(gemm, kHiprtcBackendName, {{"dtype", "bfloat16"}});
  EXPECT_NE(disassemble(bf16).find("v_mfma_f32_16x16x16bf16_1k"), std::string::npos);
  // The float32 gemm has no MFMA form here: the SIMT gemm, no v_mfma.
  fs::path fp32 =
      code_object(fs::path(TILEC_SOURCE_DIR) / "examples" / "gemm_fp32.py", kHipccBackendName);
  EXPECT_EQ(disassemble(fp32).find("v_mfma"), std::string::npos);
}

TEST_F(HipBuild, RunningWithoutAnAmdGpuSaysNoHipDeviceAndNamesTheEmulator) {
  skip_unless(kHiprtcBackendName);
  auto r = testing::tilec_cli({"run", testing::example("vector_add.py"), "--target", kGfx90a,
                               "--execution-backend", kHiprtcBackendName});
  if (r.exit_code == 0) GTEST_SKIP() << "this machine has an AMD GPU: " << r.output;
  EXPECT_NE(r.output.find("no HIP device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--execution-backend emulator"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace tilec::rocm
