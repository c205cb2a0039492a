// LLVM IR artifacts (format "llvm", textual IR) to machine code through LLVM's
// TargetMachine, shared by the llvm_jit and native execution backends (internal to
// src/exec; compiled only with -DTILEC_LLVM=ON). The machine comes from the target's
// `mtriple` (default: this process's), `mcpu` (default: this host's) and `mattr`; when
// the CPU is this host's (by name, or LLVM's "generic" for an unrecognised host) and no
// mattr is given, the host's own feature list is used, so AVX-512 is not lost on a CPU
// that LLVM 16 names `generic`. Modules are optimized at O3 before emission; in a
// process that carries AddressSanitizer's runtime (scripts/test_asan.sh) they are also
// instrumented by LLVM's AddressSanitizerPass after the O3 pipeline, masked scatters
// and gathers first expanded into per-lane accesses so they are checked too, and the
// machine identity (hence the kernel cache key) says so. UndefinedBehaviorSanitizer's checks are
// inserted by the C front end, not by an IR pass, so LLVM-built kernels do not get them.
#pragma once

#include "tilec/backend/artifact.h"
#include "tilec/target/target.h"

#include <filesystem>
#include <string>
#include <vector>

namespace tilec::exec::llvm_object {

// "LLVM 16.0.6 x86_64-pc-linux-gnu cpu=<cpu> features=<features>": what else changes
// the object, for cache identities.
std::string machine_identity(const target::Target& target);

// Links the artifacts' modules into one, optimizes it for `target` and writes one
// relocatable object (PIC) to `object_path`. Throws ExecError for an artifact that is
// not LLVM IR, IR that does not parse (with LLVM's message), or an unknown triple/CPU.
void emit_object(const std::vector<const backend::CodeArtifact*>& artifacts,
                 const target::Target& target, const std::filesystem::path& object_path);

}  // namespace tilec::exec::llvm_object
