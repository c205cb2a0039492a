#include "tilec/exec/native_backend.h"

#include "cpu_names.h"
#include "host_entry_function.h"
#include "tilec/exec/failed_build.h"
#include "tilec/exec/process.h"
#include "tilec/runtime/error.h"
#include "tilec/runtime/kernel_library.h"

#ifdef TILEC_HAVE_LLVM
#include "llvm/llvm_object.h"
#endif

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

namespace tilec::exec {
namespace {

namespace fs = std::filesystem;

constexpr const char* kArtifactName = "kernel.so";

class NativeModule final : public LoadedModule {
 public:
  explicit NativeModule(std::shared_ptr<runtime::KernelLibrary> library)
      : library_(std::move(library)) {}

  bool has_function(std::string_view global_symbol) const override {
    return library_->has_entry(global_symbol);
  }

  HostFunction function(std::string_view global_symbol) const override {
    return detail::host_entry_function(*library_, global_symbol, library_);
  }

 private:
  std::shared_ptr<runtime::KernelLibrary> library_;
};

// `cc --version`'s output per compiler command, computed once per command: it changes
// only when the toolchain does, and running it costs milliseconds. nullopt: it failed.
std::optional<std::string> version_output(const std::vector<std::string>& command) {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::optional<std::string>> outputs;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = outputs.find(command);
  if (found != outputs.end()) return found->second;
  std::vector<std::string> argv = command;
  argv.push_back("--version");
  ProcessResult result = run_process(argv);
  std::optional<std::string> output;
  if (result.exit_code == 0) output = result.output;
  outputs.emplace(command, output);
  return output;
}

// Its first line (the command itself where that is empty): what names the compiler.
std::optional<std::string> compiler_identity(const std::vector<std::string>& command) {
  auto output = version_output(command);
  if (!output) return std::nullopt;
  std::string first = output->substr(0, output->find('\n'));
  return first.empty() ? fmt::format("{}", fmt::join(command, " ")) : first;
}

// GCC's --version names the Free Software Foundation; clang's (and others') do not.
bool compiler_is_gcc(const std::vector<std::string>& command) {
  auto output = version_output(command);
  return output && output->find("Free Software Foundation") != std::string::npos;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw ExecError(fmt::format("cannot write '{}'", path.string()));
}

// One artifact as a file the C compiler driver links: C source, or (LLVM IR) an
// object emitted through LLVM's TargetMachine for `target`. Empty device code gives none.
std::optional<fs::path> prepare_input(const backend::CodeArtifact& artifact, std::string_view role,
                                      const target::Target& target, const fs::path& output_dir) {
  if (artifact.source.empty() && role == "device") return std::nullopt;
  if (artifact.format == "c") {
    fs::path source = output_dir / fmt::format("{}.c", role);
    write_file(source, artifact.source);
    return source;
  }
  if (artifact.format == "llvm") {
#ifdef TILEC_HAVE_LLVM
    write_file(output_dir / fmt::format("{}.ll", role), artifact.source);  // kept for inspection
    fs::path object = output_dir / fmt::format("{}.o", role);
    llvm_object::emit_object({&artifact}, target, object);
    return object;
#else
    throw ExecError(fmt::format(
        "the {} code is LLVM IR, but this tilec was built without LLVM (-DTILEC_LLVM=OFF); "
        "use the `c` target and host",
        role));
#endif
  }
  throw ExecError(fmt::format(
      "the native execution backend builds C and LLVM IR, but the {} code is in format '{}'; "
      "choose an execution backend that accepts '{}' (or 'auto')",
      role, artifact.format.empty() ? "<none>" : artifact.format, artifact.format));
}

class NativeBackend final : public ExecutionBackend {
 public:
  const std::string& name() const override { return name_; }

  bool available() const override {
    return compiler_identity(native_compiler_command()).has_value();
  }

  std::string unavailable_reason() const override {
    auto command = native_compiler_command();
    if (compiler_identity(command)) return "";
    return fmt::format(
        "C compiler '{}' could not be run ('{} --version' failed); install a C compiler or set "
        "$CC to one",
        fmt::join(command, " "), fmt::join(command, " "));
  }

  std::string cache_identity(const target::Target& target,
                             const target::Target& target_host) const override {
    auto command = native_compiler_command();
    auto identity = compiler_identity(command);
    std::string text = fmt::format("{} | {} | {}", fmt::join(command, " "),
                                   identity.value_or("<unavailable compiler>"),
                                   fmt::join(native_compile_flags(target), " "));
#ifdef TILEC_HAVE_LLVM
    // What LLVM would make of LLVM IR host or device code for these targets.
    text += fmt::format(" | {} | {}", llvm_object::machine_identity(target),
                        llvm_object::machine_identity(target_host));
#endif
    return text;
  }

  std::string artifact_file_name() const override {
    return kArtifactName;
  }

  BuiltModule build(const backend::CodeArtifact& host, const backend::CodeArtifact& device,
                    const target::Target& target, const target::Target& target_host,
                    const fs::path& output_dir) const override {
    std::vector<fs::path> sources;
    bool has_c = false;
    for (auto [artifact, role, for_target] :
         {std::tuple{&host, "host", &target_host}, std::tuple{&device, "device", &target}}) {
      if (auto input = prepare_input(*artifact, role, *for_target, output_dir)) {
        has_c = has_c || input->extension() == ".c";
        sources.push_back(*input);
      }
    }
    fs::path artifact = output_dir / kArtifactName;
    std::vector<std::string> argv = native_compiler_command();
    // An -mcpu the C compiler does not know: one clear error, not cc1's list once per file.
    if (has_c) require_known_march(argv, target.get_string("mcpu"));
    // Objects alone need only the link (an LLVM CPU name need not be one the C compiler knows).
    if (has_c) {
      for (auto& flag : native_compile_flags(target)) argv.push_back(flag);
    } else {
      argv.push_back("-shared");
    }
    argv.push_back("-o");
    argv.push_back(artifact.string());
    for (const auto& source : sources) argv.push_back(source.string());
    argv.push_back("-lm");
    // glibc's vector math library: the device source's simd declarations of expf & co.
    // (cpu/vector_math.h) make vectorized loops call its _ZGV* variants.
#if defined(__x86_64__) && defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35)
    argv.push_back("-lmvec");
#endif
    ProcessResult result = run_process(argv);
    std::vector<std::string> source_names;
    for (const auto& source : sources) source_names.push_back(source.string());
    if (result.exit_code == 127) {
      throw ExecError(fmt::format(
          "the native execution backend could not run the C compiler: {}\ninstall a C compiler "
          "or set $CC to one; {}",
          result.output, failed_build_sources(source_names)));
    }
    if (result.exit_code != 0) {
      // The driver runs cc1 once per source, so an error about a flag (a bad -march)
      // comes once per file; the user needs to read it once.
      std::string output;
      std::set<std::string> seen;
      std::istringstream lines(result.output);
      for (std::string text; std::getline(lines, text);)
        if (seen.insert(text).second) output += text + "\n";
      throw ExecError(fmt::format(
          "C compilation of the generated kernel failed (exit status {}); {}\ncommand: "
          "{}\ncompiler output:\n{}",
          result.exit_code, failed_build_sources(source_names), fmt::join(argv, " "), output));
    }
    return {artifact, load(artifact)};
  }

  std::shared_ptr<const LoadedModule> load(const fs::path& artifact) const override {
    return std::make_shared<NativeModule>(runtime::KernelLibrary::open(artifact.string()));
  }

 private:
  std::string name_ = kNativeBackendName;
};

}  // namespace

std::vector<std::string> native_compiler_command() {
  std::vector<std::string> command;
  if (const char* cc = std::getenv("CC"); cc != nullptr) {
    std::istringstream words(cc);
    for (std::string word; words >> word;) command.push_back(word);
  }
  if (command.empty()) command.push_back("cc");
  return command;
}

std::vector<std::string> native_compile_flags(const target::Target& target) {
  std::string mcpu = target.get_string("mcpu");
  // No FMA contraction: the reference interpreter rounds every operation
  // (docs/semantics.md). Measured on the 1024^3 float32 GEMM, one thread, AVX-512
  // AMD EPYC: -ffp-contract=fast would give about 198 GFLOP/s against 180 (the
  // micro-kernel's separate mul and add use both the multiply and the add pipes, so
  // the cost of exact agreement is about 10%, not half). -mprefer-vector-width=512
  // and -funroll-loops gave nothing.
  std::vector<std::string> flags = {"-O3", "-fPIC", "-shared", "-std=gnu11",
                                    mcpu.empty() ? std::string("-march=native") : "-march=" + mcpu,
                                    "-fopenmp-simd", "-ffp-contract=off",
                                    // Kernels never read errno; without it a math call
                                    // (sqrtf, expf) has no side effect and vectorizes.
                                    "-fno-math-errno"};
  // GCC turns a tile copy's row loop into a call of memcpy (loop distribution). For the
  // 128- and 256-byte rows of GEMM tiles the calls took about 5% of a profile of the
  // float32 GEMM 1024^3 on c (1 thread), where the vectorized loop is a few loads and
  // stores. clang has no such flag.
  if (compiler_is_gcc(native_compiler_command()))
    flags.push_back("-fno-tree-loop-distribute-patterns");
  return flags;
}

ExecutionBackendPtr make_native_execution_backend() {
  return std::make_shared<NativeBackend>();
}

const ExecutionBackendPtr& native_execution_backend() {
  static const ExecutionBackendPtr native = make_native_execution_backend();
  return native;
}

void register_native_execution_backend() {
  register_execution_backend(native_execution_backend());
}

}  // namespace tilec::exec
