// Whether this process carries a sanitizer runtime (a tilec built by
// scripts/test_asan.sh or scripts/test_tsan.sh), asked of the loaded libraries at run
// time: what matters is the runtime JIT'ed code and dlopen'ed drivers meet, not how one
// library was compiled. Used by the execution backends that load drivers or JIT code (src/exec and
// target folders).
#pragma once

namespace tilec::exec {

// AddressSanitizer's runtime (libasan) is loaded: code tilec generates may be
// instrumented for it and will find its __asan_* entry points in the process.
bool process_has_address_sanitizer();

// A sanitizer whose dlopen interceptor aborts on RTLD_DEEPBIND (AddressSanitizer,
// ThreadSanitizer; google/sanitizers#611) is loaded.
bool sanitizer_forbids_deepbind();

// Some LLVM is bound in the process's global scope (tilec's own LLVM 16 when built
// with it): a driver built on another LLVM, loaded without RTLD_DEEPBIND, would bind to
// its symbols.
bool process_has_global_llvm();

}  // namespace tilec::exec
