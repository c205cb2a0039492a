#include "tilec/runtime/kernel_library.h"

#include "tilec/runtime/error.h"
#include "tilec/runtime/runtime_env.h"
#include "tilec/runtime/stream.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>

namespace tilec::runtime {
namespace {

std::string last_dl_error() {
  const char* message = dlerror();
  return message ? message : "unknown dynamic loader error";
}

}  // namespace

std::shared_ptr<KernelLibrary> KernelLibrary::open(const std::string& path) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    throw RuntimeError(fmt::format("cannot load kernel library '{}': {}; rebuild the kernel", path,
                                   last_dl_error()));
  }
  auto version_fn = reinterpret_cast<int32_t (*)()>(dlsym(handle, "tilec_abi_version"));
  if (version_fn == nullptr) {
    dlclose(handle);
    throw RuntimeError(
        fmt::format("'{}' is not a tilec kernel library: it does not export tilec_abi_version(); "
                    "load only libraries produced by tilec compile",
                    path));
  }
  int32_t version = version_fn();
  if (version != TILEC_ABI_VERSION) {
    dlclose(handle);
    throw RuntimeError(fmt::format(
        "kernel library '{}' was built for tilec ABI version {}, but this runtime speaks "
        "version {}; recompile the kernel (or clear the kernel cache)",
        path, version, TILEC_ABI_VERSION));
  }
  return std::shared_ptr<KernelLibrary>(new KernelLibrary(path, handle));
}

KernelLibrary::~KernelLibrary() {
  dlclose(handle_);
}

bool KernelLibrary::has_entry(std::string_view global_symbol) const {
  return dlsym(handle_, std::string(global_symbol).c_str()) != nullptr;
}

TilecHostEntry KernelLibrary::entry(std::string_view global_symbol) const {
  void* symbol = dlsym(handle_, std::string(global_symbol).c_str());
  if (symbol == nullptr) {
    throw RuntimeError(fmt::format(
        "kernel library '{}' has no host entry '{}'; check the function name (the entry is "
        "named by the function's global_symbol)",
        path_, global_symbol));
  }
  return reinterpret_cast<TilecHostEntry>(symbol);
}

void call_host_entry(TilecHostEntry entry, std::string_view name, std::span<const TilecArg> args,
                     const TilecRuntimeEnv* env) {
  std::array<char, 1024> message{};
  if (!env) env = default_runtime_env();
  TilecRuntimeEnv on_stream;
  if (void* stream = current_stream()) {
    if (env->device_api == nullptr) {
      throw RuntimeError(fmt::format(
          "kernel '{}': a stream was given, but this kernel runs on the host (its execution "
          "backend has no device), so nothing would run on it; call it without a stream",
          name));
    }
    on_stream = *env;
    on_stream.stream = stream;
    env = &on_stream;
  }
  int32_t status =
      entry(args.data(), int32_t(args.size()), env, message.data(), int32_t(message.size()));
  if (status != 0) {
    message.back() = '\0';
    std::string text = message[0] != '\0'
                           ? std::string(message.data())
                           : fmt::format("failed with status {} and no message", status);
    // Most entry messages name the kernel already ("kernel 'f' expects 3 argument(s)");
    // those are passed as they are, the rest get the name in front.
    std::string named = fmt::format("kernel '{}'", name);
    if (text.rfind(named, 0) == 0) throw RuntimeError(text);
    throw RuntimeError(fmt::format("{}: {}", named, text));
  }
}

}  // namespace tilec::runtime
