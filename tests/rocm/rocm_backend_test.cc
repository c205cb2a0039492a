// The rocm backend's registration and target facts: get_backend("rocm") owns kind `hip`
// with its pipeline, device codegen and the standard host codegen; execution backends in
// auto order hiprtc, hipcc, source, emulator; the wavefront from the arch (64 on gfx9,
// 32 on gfx10+); the detector reports nothing without a device (this machine has none);
// the MFMA accumulator layout is a bijection and matches AMD's C layout; the global
// function tilelang_callback_hip_compile is published.
#include "tilec/backend/global_function.h"
#include "tilec/backend/module.h"
#include "tilec/engine/initialize.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/rocm/backend.h"
#include "tilec/rocm/detector.h"
#include "tilec/rocm/hip_backends.h"
#include "tilec/rocm/hip_target.h"
#include "tilec/rocm/mfma_gemm.h"
#include "tilec/target/detect.h"

#include <gtest/gtest.h>

namespace tilec::rocm {
namespace {

TEST(RocmBackend, OwnsTheHipKindWithPipelineCodegensAndExecutionBackends) {
  initialize();
  auto module = backend::get_backend("rocm");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->target_kinds, std::vector<std::string>{"hip"});
  EXPECT_TRUE(module->pipelines.count("hip"));
  EXPECT_TRUE(module->device_codegens.count("hip"));
  EXPECT_TRUE(module->host_codegens.count("c"));
  std::vector<std::string> order;
  for (const auto& spec : module->execution_backends) order.push_back(spec.name);
  EXPECT_EQ(order, (std::vector<std::string>{"hiprtc", "hipcc", "source", "emulator"}));
  EXPECT_TRUE(module->matches(target::Target::parse("hip -mcpu=gfx90a")));
}

TEST(RocmBackend, WavefrontComesFromTheArch) {
  EXPECT_EQ(arch_wavefront_size("gfx908"), 64);
  EXPECT_EQ(arch_wavefront_size("gfx90a"), 64);
  EXPECT_EQ(arch_wavefront_size("gfx942"), 64);
  EXPECT_EQ(arch_wavefront_size("gfx1030"), 32);
  EXPECT_EQ(arch_wavefront_size("gfx1100"), 32);
  EXPECT_EQ(hip_arch(target::Target::parse("hip -mcpu=gfx90a:sramecc+:xnack-")), "gfx90a");
  EXPECT_EQ(hip_arch(target::Target::parse("hip")), kDefaultHipArch);
  auto rdna = normalize_hip_wavefront(target::Target::parse("hip -mcpu=gfx1030"));
  ASSERT_TRUE(rdna.has_value());
  EXPECT_EQ(rdna->get_int("thread_warp_size"), 32);
  EXPECT_FALSE(normalize_hip_wavefront(target::Target::parse("hip -mcpu=gfx90a")).has_value());
  initialize();
  EXPECT_EQ(target::determine_target("hip -mcpu=gfx1030").get_int("thread_warp_size"), 32);
  EXPECT_EQ(target::determine_target("hip -mcpu=gfx90a").get_int("thread_warp_size"), 64);
  EXPECT_TRUE(arch_has_mfma("gfx908"));
  EXPECT_FALSE(arch_has_mfma_bf16_1k("gfx908"));
  EXPECT_TRUE(arch_has_mfma_bf16_1k("gfx90a"));
  EXPECT_FALSE(arch_has_mfma("gfx1030"));
}

TEST(RocmBackend, DetectorAnswersAnArchOrSaysWhyNot) {
  target::Detection d = detect_hip();
  if (d.target) {
    EXPECT_EQ(d.target->kind(), "hip");
    EXPECT_EQ(d.target->get_string("mcpu").rfind("gfx", 0), 0u);
  } else {
    EXPECT_FALSE(d.reason.empty());
  }
}

TEST(RocmBackend, MfmaAccumulatorLayoutIsAmdsCLayout) {
  auto tiling = choose_wave_tiling(64, 32, 256, ir::GemmWarpPolicy::kSquare);
  ASSERT_TRUE(tiling.has_value());
  EXPECT_EQ(tiling->waves_m * tiling->waves_n, 4);
  gpu::FragmentLayout layout = mfma_accumulator_layout(64, 32, *tiling);
  EXPECT_EQ(gpu::check_layout(layout), "");
  // One 16x16 tile on one wavefront: lane l, register q holds (4 (l / 16) + q, l % 16).
  auto one = choose_wave_tiling(16, 16, 64, ir::GemmWarpPolicy::kSquare);
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(gpu::check_layout(mfma_accumulator_layout(16, 16, *one)), "");
  EXPECT_FALSE(choose_wave_tiling(16, 16, 96, ir::GemmWarpPolicy::kSquare).has_value());
  auto rows = choose_wave_tiling(64, 64, 256, ir::GemmWarpPolicy::kFullRow);
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->waves_m, 4);
  auto cols = choose_wave_tiling(64, 64, 256, ir::GemmWarpPolicy::kFullCol);
  ASSERT_TRUE(cols.has_value());
  EXPECT_EQ(cols->waves_n, 4);
}

TEST(RocmBackend, PublishesTileLangsHipCompileCallback) {
  initialize();
  auto fn = backend::find_global_func(kHipCompileCallbackName);
  ASSERT_TRUE(fn.has_value());
  EXPECT_THROW((*fn)({backend::Value(std::string("x"))}), std::exception);
  auto hiprtc = exec::get_execution_backend(kHiprtcBackendName);
  if (!hiprtc->available()) GTEST_SKIP() << hiprtc->unavailable_reason();
  // TileLang passes the HIP source and the target; the answer is a gfx90a code object.
  backend::Value object =
      (*fn)({backend::Value(std::string("extern \"C\" __global__ void k(float* x) { x[0] = 1; }")),
             backend::Value(target::Target::parse("hip -mcpu=gfx90a"))});
  const auto& bytes = object.as<backend::Bytes>();
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4),
            "\x7f"
            "ELF");
  EXPECT_THROW((*fn)({backend::Value(std::string("not HIP")),
                      backend::Value(target::Target::parse("hip -mcpu=gfx90a"))}),
               exec::ExecError);
}

}  // namespace
}  // namespace tilec::rocm
