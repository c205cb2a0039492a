#include "tilec/exec/sanitizer_runtime.h"

#include <dlfcn.h>

namespace tilec::exec {
namespace {

bool defined_in_process(const char* symbol) {
  return dlsym(RTLD_DEFAULT, symbol) != nullptr;
}

}  // namespace

bool process_has_address_sanitizer() {
  static const bool loaded = defined_in_process("__asan_init");
  return loaded;
}

bool sanitizer_forbids_deepbind() {
  static const bool forbids = process_has_address_sanitizer() || defined_in_process("__tsan_init");
  return forbids;
}

bool process_has_global_llvm() {
  static const bool loaded = defined_in_process("LLVMContextCreate");
  return loaded;
}

}  // namespace tilec::exec
