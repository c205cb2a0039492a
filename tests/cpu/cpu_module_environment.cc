// Every cpu test runs with the cpu module registered, as tilec::initialize() would have
// it: make_cpu_pipeline() lowers tile ops through the cpu module's tile-op
// implementations (register-blocked gemm, serial scheduled loops), which the module
// registers, not the pipeline.
#include "tilec/cpu/backend.h"
#include "tilec/cpu/module.h"

#include <gtest/gtest.h>

namespace {

class CpuModuleEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { tilec::cpu::register_cpu_backend(); }
};

[[maybe_unused]] const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new CpuModuleEnvironment);

}  // namespace
