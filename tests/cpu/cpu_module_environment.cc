// Every cpu test runs with the cpu module registered, as tilec::initialize() would have
// it: make_cpu_pipeline() lowers tile ops through the cpu module's tile-op
// implementations (register-blocked gemm, serial scheduled loops), which the module
// registers, not the pipeline.
#include "tilec/cpu/backend.h"
#include "tilec/cpu/module.h"
#include "tilec/cpu/target_kinds.h"

#include <gtest/gtest.h>

namespace {

class CpuModuleEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { tilec::cpu::register_cpu_backend(); }
};

// The kinds before any other static of the binary: some tests parse `c` targets at
// namespace scope, before the environment registers the module.
struct RegisterKindsFirst {
  RegisterKindsFirst() { tilec::cpu::register_cpu_target_kinds(); }
};
__attribute__((init_priority(101))) const RegisterKindsFirst kKindsFirst;

[[maybe_unused]] const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new CpuModuleEnvironment);

}  // namespace
