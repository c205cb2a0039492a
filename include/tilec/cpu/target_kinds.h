// The cpu module's target kinds: `c` (portable C through the system C compiler) and `llvm`
// (IR through LLVM; registered also in a build without LLVM, whose normalizer then refuses
// llvm targets with how to rebuild). Registered by register_cpu_backend().
#pragma once

namespace tilec::cpu {

void register_cpu_target_kinds();  // idempotent; journaled

}  // namespace tilec::cpu
