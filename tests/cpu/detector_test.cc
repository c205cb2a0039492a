// The cpu module's contributions beside its manifest: the "cpu" target detector (the
// host fallback of "auto") is registered by the module, and answers c, or llvm with the
// host CPU once LLVM is enabled.
#include "tilec/cpu/detector.h"
#include "tilec/cpu/backend.h"
#include "tilec/cpu/module.h"
#include "tilec/target/detect.h"

#ifdef TILEC_HAVE_LLVM
#include "tilec/cpu/llvm_codegen.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>

namespace tilec::cpu {
namespace {

using target::DetectorReport;
using target::Target;

std::optional<DetectorReport> probe(const std::string& name) {
  for (auto& report : target::probe_target_detectors()) {
    if (report.name == name) return report;
  }
  return std::nullopt;
}

TEST(CpuDetector, RegisteredByTheCpuModuleAsTheHostFallback) {
  register_cpu_backend();
  register_cpu_backend();  // idempotent: the same detector is not registered twice
  auto names = target::list_target_detectors();
  EXPECT_EQ(std::count(names.begin(), names.end(), kCpuDetectorName), 1);
  // Any accelerator detector registered later is still asked first.
  target::register_target_detector(
      "cpu_test_accelerator", [] { return std::optional<Target>(); }, false,
      target::kAcceleratorDetectorPriority);
  names = target::list_target_detectors();
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], "cpu_test_accelerator");
  EXPECT_EQ(names[1], kCpuDetectorName);
  EXPECT_EQ(target::auto_detect_target().kind(), target::llvm_enabled() ? "llvm" : "c");
  EXPECT_TRUE(target::unregister_target_detector("cpu_test_accelerator"));
}

TEST(CpuDetector, AnswersLlvmWithTheHostCpuOnceLlvmIsEnabled) {
  register_cpu_backend();
#ifdef TILEC_HAVE_LLVM
  // Registering the cpu module of an LLVM build enables LLVM with this host's CPU name.
  ASSERT_TRUE(target::llvm_enabled());
  EXPECT_EQ(detect_cpu().target, Target::parse("llvm -mcpu=" + llvm_host_cpu_name()));
  target::enable_llvm_host_cpu({});
#endif
  ASSERT_FALSE(target::llvm_enabled());
  auto report = probe(kCpuDetectorName);
  ASSERT_TRUE(report && report->target) << (report ? report->reason : "not registered");
  EXPECT_EQ(*report->target, Target::parse("c"));
  target::enable_llvm_host_cpu([] { return std::string("znver4"); });
  EXPECT_TRUE(target::llvm_enabled());
  EXPECT_EQ(detect_cpu().target, Target::parse("llvm -mcpu=znver4"));
  report = probe(kCpuDetectorName);
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->target, Target::parse("llvm -mcpu=znver4"));
  target::enable_llvm_host_cpu({});
  EXPECT_FALSE(target::llvm_enabled());
#ifdef TILEC_HAVE_LLVM
  target::enable_llvm_host_cpu(&llvm_host_cpu_name);
#endif
}

}  // namespace
}  // namespace tilec::cpu
