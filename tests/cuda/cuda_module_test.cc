// The cuda module owns the `cuda` kind's target detector: it registers it (once, however
// often it runs), the detector answers an sm_XY arch or says why not (this machine may
// have no GPU: scripts/gpu_check.sh checks a real one), and with the built-in modules
// loaded "auto" asks cuda before cpu although builtin_modules.cc lists cpu first.
#include "tilec/cuda/detector.h"
#include "tilec/cuda/module.h"
#include "tilec/engine/initialize.h"
#include "tilec/target/detect.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace tilec::cuda {
namespace {

TEST(CudaModule, RegistersTheCudaDetectorOnce) {
  register_cuda_backend();
  register_cuda_backend();
  auto names = target::list_target_detectors();
  EXPECT_EQ(std::count(names.begin(), names.end(), kCudaDetectorName), 1);
}

TEST(CudaModule, DetectorAnswersAnArchOrSaysWhyNot) {
  register_cuda_backend();
  auto reports = target::probe_target_detectors();
  auto cuda = std::find_if(reports.begin(), reports.end(),
                           [](const auto& r) { return r.name == kCudaDetectorName; });
  ASSERT_NE(cuda, reports.end());
  EXPECT_FALSE(cuda->failed) << cuda->reason;
  if (cuda->target) {
    EXPECT_EQ(cuda->target->kind(), "cuda");
    EXPECT_EQ(cuda->target->get_string("arch").rfind("sm_", 0), 0u);
  } else {
    EXPECT_FALSE(cuda->reason.empty());
  }
  target::Detection direct = detect_cuda();
  EXPECT_EQ(direct.target.has_value(), cuda->target.has_value());
}

TEST(CudaModule, BuiltinModulesDetectCudaBeforeCpu) {
  const auto& modules = builtin_modules();
  auto position = [&](std::string_view path) {
    return std::find_if(modules.begin(), modules.end(),
                        [&](const BuiltinModule& m) { return m.import_path == path; }) -
           modules.begin();
  };
  // Registration order puts cpu first; the detector priority, not that order, decides.
  ASSERT_LT(position("tilec.cpu"), position("tilec.cuda"));
  ASSERT_LT(position("tilec.cuda"), std::ssize(modules));
  initialize();
  // Other accelerator modules (rocm) may sit between cuda and cpu; cpu comes last.
  auto names = target::list_target_detectors();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], kCudaDetectorName);
  EXPECT_EQ(names.back(), "cpu");
  auto reports = target::probe_target_detectors();
  std::optional<target::Target> expected;
  for (const auto& r : reports) {
    if (r.target) {
      expected = r.target;
      break;
    }
  }
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(target::auto_detect_target(), *expected);
}

}  // namespace
}  // namespace tilec::cuda
