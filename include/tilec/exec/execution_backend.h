// ExecutionBackend: a shared build/load implementation (native, nvrtc, ...) any target
// backend reuses: build() turns host + device CodeArtifacts into one artifact file and
// loads it, load() reopens such a file (the kernel cache keeps it); the cache identity
// names what else changes the artifact (compiler, flags). Plus the thread-safe registry.
#pragma once

#include "tilec/backend/artifact.h"
#include "tilec/runtime/abi.h"
#include "tilec/target/target.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::exec {

// A build, load or registry failure; the message carries the compiler output,
// the kept source path or the registered names, and what to try.
struct ExecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One host entry of a loaded module, bound once so repeated calls skip lookup.
// Throws runtime::RuntimeError when the kernel rejects its arguments.
using HostFunction = std::function<void(std::span<const TilecArg> args)>;

// A built artifact loaded into this process; it stays loaded while referenced.
class LoadedModule {
 public:
  virtual ~LoadedModule() = default;
  virtual bool has_function(std::string_view global_symbol) const = 0;
  // Throws ExecError naming the symbol when the module does not export it.
  virtual HostFunction function(std::string_view global_symbol) const = 0;
};

struct BuiltModule {
  std::filesystem::path artifact;  // the one file load() accepts
  std::shared_ptr<const LoadedModule> module;
};

class ExecutionBackend {
 public:
  virtual ~ExecutionBackend() = default;
  virtual const std::string& name() const = 0;
  virtual bool available() const = 0;
  // Why available() is false ("C compiler 'cc' not found ..."); empty when available.
  virtual std::string unavailable_reason() const = 0;
  virtual std::string cache_identity(const target::Target& target,
                                     const target::Target& target_host) const = 0;
  // The file name build() gives its artifact ("kernel.so"), for cache entries.
  virtual std::string artifact_file_name() const = 0;
  // Writes sources and the artifact into output_dir (which must exist) and loads
  // it. On failure throws ExecError and leaves the sources there for inspection.
  virtual BuiltModule build(const backend::CodeArtifact& host, const backend::CodeArtifact& device,
                            const target::Target& target, const target::Target& target_host,
                            const std::filesystem::path& output_dir) const = 0;
  virtual std::shared_ptr<const LoadedModule> load(const std::filesystem::path& artifact) const = 0;
};

using ExecutionBackendPtr = std::shared_ptr<const ExecutionBackend>;

// Registers under backend->name(). The same object again is a no-op returning
// the registered one; another object under a taken name throws unless override.
// An empty name or null backend throws; nothing is published on failure. Thread-safe.
ExecutionBackendPtr register_execution_backend(ExecutionBackendPtr backend, bool override = false);
// Throws ExecError listing the registered names when `name` is unknown.
ExecutionBackendPtr get_execution_backend(std::string_view name);
std::vector<std::string> list_execution_backends();  // sorted copy
// Registered and usable on this machine; false (never throws) otherwise.
bool is_execution_backend_available(std::string_view name);

// The hook that registers the execution backends target backends own (opencl's, nvrtc,
// wgpu, ...): their modules register them when they load, so a lookup that misses, and
// every listing, runs it first. The engine installs tilec::initialize(); without an
// engine in the process there is none. Not run again from inside itself.
void set_execution_backend_loader(std::function<void()> loader);

}  // namespace tilec::exec
