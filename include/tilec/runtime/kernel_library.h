// KernelLibrary: one compiled kernel library, dlopen'ed RTLD_LOCAL after checking that
// tilec_abi_version() == TILEC_ABI_VERSION; host entries are looked up by global_symbol.
// call_host_entry turns a non-zero status into a RuntimeError with the kernel's message.
#pragma once

#include "tilec/runtime/abi.h"

#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace tilec::runtime {

class KernelLibrary {
 public:
  // Throws RuntimeError with the loader's message for an unloadable file, a
  // library without tilec_abi_version, or one built for another ABI version.
  static std::shared_ptr<KernelLibrary> open(const std::string& path);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  const std::string& path() const { return path_; }
  bool has_entry(std::string_view global_symbol) const;
  // Throws RuntimeError naming the library and the symbol when it is absent.
  TilecHostEntry entry(std::string_view global_symbol) const;

 private:
  KernelLibrary(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}
  std::string path_;
  void* handle_;
};

// Calls `entry` (named `name` in messages) on the default runtime env unless one
// is given, with this thread's current_stream() (runtime/stream.h) as the env's stream
// when one is set (a RuntimeError when the env has no device); a non-zero status
// throws RuntimeError("kernel 'name': <message>").
void call_host_entry(TilecHostEntry entry, std::string_view name, std::span<const TilecArg> args,
                     const TilecRuntimeEnv* env = nullptr);

}  // namespace tilec::runtime
