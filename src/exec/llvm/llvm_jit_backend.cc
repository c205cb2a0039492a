#include "llvm_jit_backend.h"

#include "vector_library.h"

#include "llvm_object.h"
#include "tilec/runtime/host_arg_checks.h"
#include "tilec/runtime/kernel_library.h"

#include <fmt/format.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include <atomic>
#include <mutex>

namespace tilec::exec {
namespace {

namespace fs = std::filesystem;
namespace orc = llvm::orc;

constexpr const char* kObjectName = "kernel.o";

std::string message_of(llvm::Error error) {
  return llvm::toString(std::move(error));
}

// The process's one LLJIT; each loaded kernel object gets a JITDylib of its own, which
// resolves libc/libm from the process and the runtime's argument checks directly.
class Jit {
 public:
  static Jit& instance() {
    // Never destroyed: kernels held by other statics may unload during exit.
    static Jit* jit = new Jit;
    return *jit;
  }

  const std::string& failure() const { return failure_; }

  // Loads `object` into a fresh JITDylib; returns it (for lookups and removal).
  orc::JITDylib& load(const fs::path& object) {
    if (!jit_) throw ExecError("the LLVM JIT could not start: " + failure_);
    auto buffer = llvm::MemoryBuffer::getFile(object.string());
    if (!buffer) {
      throw ExecError(fmt::format("cannot read the kernel object '{}': {}", object.string(),
                                  buffer.getError().message()));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    std::string name = fmt::format("tilec-kernel-{}", next_id_++);
    auto dylib = jit_->createJITDylib(name);
    if (!dylib)
      throw ExecError("the LLVM JIT could not create a library: " + message_of(dylib.takeError()));
    orc::JITDylib& jd = *dylib;
    auto process = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit_->getDataLayout().getGlobalPrefix());
    if (!process)
      throw ExecError("the LLVM JIT cannot search this process: " +
                      message_of(process.takeError()));
    jd.addGenerator(std::move(*process));
    orc::MangleAndInterner mangle(jit_->getExecutionSession(), jit_->getDataLayout());
    orc::SymbolMap helpers;
    auto define = [&](const char* symbol, auto* address) {
      helpers[mangle(symbol)] = llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(address),
                                                         llvm::JITSymbolFlags::Exported);
    };
    define("tilec_rt_fail", &tilec_rt_fail);
    define("tilec_rt_tensor_arg", &tilec_rt_tensor_arg);
    define("tilec_rt_check_dim", &tilec_rt_check_dim);
    define("tilec_rt_bind_dim", &tilec_rt_bind_dim);
    define("tilec_rt_arg_kind_name", &tilec_rt_arg_kind_name);
    if (auto error = jd.define(orc::absoluteSymbols(std::move(helpers)))) {
      remove_locked(jd);
      throw ExecError("the LLVM JIT could not define the runtime helpers: " +
                      message_of(std::move(error)));
    }
    if (auto error = jit_->addObjectFile(jd, std::move(*buffer))) {
      remove_locked(jd);
      throw ExecError(fmt::format("the LLVM JIT rejected the kernel object '{}': {}",
                                  object.string(), message_of(std::move(error))));
    }
    return jd;
  }

  // The address of `symbol` in `jd`, or nullptr when it does not define it.
  void* lookup(orc::JITDylib& jd, std::string_view symbol, std::string* error = nullptr) {
    auto address = jit_->lookup(jd, llvm::StringRef(symbol.data(), symbol.size()));
    if (!address) {
      std::string text = message_of(address.takeError());
      if (error) *error = text;
      return nullptr;
    }
    return address->toPtr<void*>();
  }

  void remove(orc::JITDylib& jd) {
    std::lock_guard<std::mutex> lock(mutex_);
    remove_locked(jd);
  }

 private:
  Jit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto jit = orc::LLJITBuilder().create();
    if (!jit) {
      failure_ = message_of(jit.takeError());
      return;
    }
    jit_ = std::move(*jit);
    // A cached kernel object may call libmvec's vector math (vector_library.h) without
    // this process having optimized anything: its symbols must be there to resolve.
    load_libmvec();
  }

  void remove_locked(orc::JITDylib& jd) {
    llvm::consumeError(jit_->getExecutionSession().removeJITDylib(jd));
  }

  std::mutex mutex_;
  std::unique_ptr<orc::LLJIT> jit_;
  std::string failure_;
  uint64_t next_id_ = 0;
};

class JitModule final : public LoadedModule {
 public:
  JitModule(orc::JITDylib& jd, fs::path object) : jd_(jd), object_(std::move(object)) {
    std::string error;
    auto* version =
        reinterpret_cast<int32_t (*)()>(Jit::instance().lookup(jd_, "tilec_abi_version", &error));
    if (version == nullptr) {
      Jit::instance().remove(jd_);
      throw ExecError(
          fmt::format("'{}' is not a tilec kernel object: it defines no tilec_abi_version() ({})",
                      object_.string(), error));
    }
    if (version() != TILEC_ABI_VERSION) {
      int32_t got = version();
      Jit::instance().remove(jd_);
      throw ExecError(fmt::format("'{}' was built for runtime ABI version {}, this tilec has {}",
                                  object_.string(), got, TILEC_ABI_VERSION));
    }
  }
  ~JitModule() override { Jit::instance().remove(jd_); }
  JitModule(const JitModule&) = delete;
  JitModule& operator=(const JitModule&) = delete;

  bool has_function(std::string_view global_symbol) const override {
    return Jit::instance().lookup(jd_, global_symbol) != nullptr;
  }

  HostFunction function(std::string_view global_symbol) const override {
    std::string error;
    auto entry =
        reinterpret_cast<TilecHostEntry>(Jit::instance().lookup(jd_, global_symbol, &error));
    if (entry == nullptr) {
      throw ExecError(fmt::format("kernel object '{}' defines no host entry '{}' ({})",
                                  object_.string(), global_symbol, error));
    }
    // The closure holds the module so the code stays loaded while callable.
    auto self = shared_from_this_module();
    return [self, entry, name = std::string(global_symbol)](std::span<const TilecArg> args) {
      runtime::call_host_entry(entry, name, args);
    };
  }

  void set_self(std::weak_ptr<const JitModule> self) { self_ = std::move(self); }

 private:
  std::shared_ptr<const JitModule> shared_from_this_module() const { return self_.lock(); }

  orc::JITDylib& jd_;
  fs::path object_;
  std::weak_ptr<const JitModule> self_;
};

class LlvmJitBackend final : public ExecutionBackend {
 public:
  const std::string& name() const override { return name_; }

  bool available() const override { return Jit::instance().failure().empty(); }

  std::string unavailable_reason() const override {
    const std::string& failure = Jit::instance().failure();
    return failure.empty() ? "" : "the LLVM JIT could not start on this machine: " + failure;
  }

  std::string cache_identity(const target::Target& target,
                             const target::Target& target_host) const override {
    return "llvm_jit | " + llvm_object::machine_identity(target);
  }

  std::string artifact_file_name() const override { return kObjectName; }

  BuiltModule build(const backend::CodeArtifact& host, const backend::CodeArtifact& device,
                    const target::Target& target, const target::Target& target_host,
                    const fs::path& output_dir) const override {
    for (const auto* artifact : {&host, &device}) {
      if (!artifact->source.empty() && artifact->format != "llvm") {
        throw ExecError(fmt::format(
            "the llvm_jit execution backend runs LLVM IR, but the {} code is in format '{}'; use "
            "--target-host llvm with an llvm target, or the native execution backend",
            artifact == &host ? "host" : "device", artifact->format));
      }
    }
    fs::path object = output_dir / kObjectName;
    llvm_object::emit_object({&host, &device}, target, object);
    return {object, load(object)};
  }

  std::shared_ptr<const LoadedModule> load(const fs::path& artifact) const override {
    auto module = std::make_shared<JitModule>(Jit::instance().load(artifact), artifact);
    module->set_self(module);
    return module;
  }

 private:
  std::string name_ = kLlvmJitBackendName;
};

}  // namespace

const ExecutionBackendPtr& llvm_jit_execution_backend() {
  static const ExecutionBackendPtr backend = std::make_shared<LlvmJitBackend>();
  return backend;
}

}  // namespace tilec::exec
