#include "tilec/exec/emulator.h"

#include "block_runner.h"
#include "device_library.h"
#include "emulator_headers.h"
#include "tilec/exec/device_build.h"
#include "tilec/exec/device_module.h"
#include "tilec/exec/device_symbols.h"
#include "tilec/exec/embedded_files.h"
#include "tilec/exec/failed_build.h"
#include "tilec/exec/native_backend.h"
#include "tilec/exec/process.h"
#include "tilec/runtime/kernel_library.h"
#include "tilec/runtime/runtime_env.h"
#include "tilec/runtime/thread_pool.h"
#include "tilec/transform/pass_context.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace tilec::exec {
namespace {

namespace fs = std::filesystem;

constexpr const char* kArtifactName = "kernel.so";
constexpr const char* kDeviceLibrary = "device.so";
constexpr const char* kDeviceSource = "device.cu";
constexpr const char* kDeviceMain = "device_main.cc";
constexpr const char* kIncludeDir = "emu_include";
constexpr const char* kRebuildScript = "rebuild.sh";
// The largest block a CUDA/HIP device launches, and its grid limits.
constexpr int64_t kMaxBlockThreads = 1024;
constexpr int64_t kMaxGrid[3] = {2147483647, 65535, 65535};

struct DialectRegistry {
  std::mutex mutex;
  std::map<std::string, EmulatorDialect, std::less<>> dialects;
};

DialectRegistry& dialects() {
  static DialectRegistry registry;
  return registry;
}

EmulatorDialect dialect_for(const std::string& format) {
  DialectRegistry& r = dialects();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (auto found = r.dialects.find(format); found != r.dialects.end()) return found->second;
  std::vector<std::string> known;
  for (const auto& [name, _] : r.dialects) known.push_back(name);
  throw ExecError(fmt::format(
      "the emulator execution backend runs device code in {}, but this device code is in "
      "format '{}'; choose another execution backend (`tilec backends` lists them)",
      known.empty() ? "no format (no GPU backend registered a dialect)"
                    : fmt::format("the formats {}", fmt::join(known, ", ")),
      format.empty() ? "<none>" : format));
}

// What the registered dialects would write into a build (a plugin may replace one), so a
// changed dialect header never reuses a kernel-cache entry built with the old one.
std::string dialects_identity() {
  DialectRegistry& r = dialects();
  std::lock_guard<std::mutex> lock(r.mutex);
  size_t hash = 0;
  auto mix = [&hash](std::string_view text) {
    hash ^= std::hash<std::string_view>{}(text) + 0x9e3779b97f4a7c15ull + (hash << 6) + (hash >> 2);
  };
  for (const auto& [format, dialect] : r.dialects) {
    mix(format);
    mix(dialect.header);
    for (const auto& [path, text] : dialect.files) {
      mix(path);
      mix(text);
    }
  }
  return fmt::format("{:016x}", hash);
}

// $CXX split into words, else c++.
std::vector<std::string> cxx_command() {
  std::vector<std::string> words;
  if (const char* cxx = std::getenv("CXX"); cxx && *cxx) {
    std::istringstream in(cxx);
    for (std::string w; in >> w;) words.push_back(w);
  }
  if (words.empty()) words.push_back("c++");
  return words;
}

std::optional<std::string> cxx_identity() {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::optional<std::string>> seen;
  auto command = cxx_command();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = seen.find(command); found != seen.end()) return found->second;
  auto argv = command;
  argv.push_back("--version");
  ProcessResult result = run_process(argv);
  std::optional<std::string> identity;
  if (result.exit_code == 0) identity = result.output.substr(0, result.output.find('\n'));
  seen.emplace(command, identity);
  return identity;
}

bool race_check_requested() {
  const auto& config = transform::PassContext::current().config();
  auto found = config.find(kEmulatorRaceCheckConfigKey);
  return found != config.end() && std::get<bool>(found->second);
}

// The compile flags: debug information for gdb, optimization for speed, no contraction
// into fused multiply-adds (the GPU builds use --fmad=false), and type punning through
// vector types as CUDA code does it.
std::vector<std::string> compile_flags(bool race_check) {
  std::vector<std::string> flags = {
      "-std=c++17", "-g", "-O2", "-fPIC", "-fno-strict-aliasing", "-ffp-contract=off", "-w"};
  // The define gives the callbacks to compilers that do not define __SANITIZE_THREAD__ (clang).
  if (race_check) flags.insert(flags.end(), {"-fsanitize=thread", "-DTILEC_EMU_RACE_CHECK=1"});
  return flags;
}

// One loaded emulated kernel library: host entries on the tilec runtime with a device
// whose memory is host memory and whose launches run on the engine.
class EmulatorModule final : public DeviceModule {
 public:
  // Device memory is host memory, but tensors are copied in and back, as for a GPU.
  EmulatorModule(std::shared_ptr<runtime::KernelLibrary> library,
                 std::unique_ptr<emulator::DeviceLibrary> device, bool race_check)
      : DeviceModule(std::move(library), &kApi),
        device_(std::move(device)),
        race_check_(race_check) {}

 private:
  static int32_t api_alloc(void*, int64_t nbytes, void** out, char* err, int32_t len) {
    size_t bytes = size_t((std::max<int64_t>(nbytes, 1) + 255) / 256 * 256);
    *out = std::aligned_alloc(256, bytes);  // cudaMalloc's alignment
    if (!*out) {
      return fail_device_call(
          err, len, fmt::format("emulator: cannot allocate {} bytes of device memory", nbytes));
    }
    return 0;
  }

  static int32_t api_free(void*, void* buffer) {
    std::free(buffer);
    return 0;
  }

  static int32_t api_copy(void*, void* buffer, void* host, int64_t nbytes, int32_t kind,
                          void* stream, char* err, int32_t len) {
    if (stream) {
      return fail_device_call(err, len,
                              "emulator: the emulated device has no streams; run without one");
    }
    if (nbytes <= 0) return 0;
    if (kind == kTilecCopyHostToDevice) {
      std::memcpy(buffer, host, size_t(nbytes));
    } else {
      std::memcpy(host, buffer, size_t(nbytes));
    }
    return 0;
  }

  static int32_t api_launch(void* device, const char* function, const int64_t grid[3],
                            const int64_t block[3], int64_t shared_bytes,
                            const TilecDeviceArg* args, int32_t num_args, void* stream, char* err,
                            int32_t len) {
    EmulatorModule& m = of<EmulatorModule>(device);
    try {
      m.launch(function, grid, block, shared_bytes, args, num_args, stream);
    } catch (const LaunchStatus& status) {
      return fail_device_status(err, len, status.word, function);
    } catch (const std::exception& e) {
      return fail_device_call(err, len, e.what());
    }
    return 0;
  }

  struct LaunchStatus {
    int32_t word;
  };

  void launch(const char* function, const int64_t grid[3], const int64_t block[3],
              int64_t shared_bytes, const TilecDeviceArg* args, int32_t num_args,
              void* stream) const {
    if (stream) throw ExecError("emulator: the emulated device has no streams; run without one");
    const TilecEmuKernelInfo* kernel = device_->kernel(function);
    if (!kernel) {
      throw ExecError(fmt::format("emulator: the device library has no kernel '{}'", function));
    }
    if (kernel->num_params != num_args) {
      throw ExecError(fmt::format("emulator: kernel '{}' takes {} parameters, the launch passes {}",
                                  function, kernel->num_params, num_args));
    }
    int64_t threads = block[0] * block[1] * block[2];
    for (int i = 0; i < 3; ++i) {
      if (grid[i] < 1 || grid[i] > kMaxGrid[i] || block[i] < 1) {
        throw ExecError(fmt::format(
            "emulator: launching '{}' with grid {}x{}x{} and blocks {}x{}x{}: every extent must be "
            "at least 1 and the grid at most {}x{}x{}, as on a GPU",
            function, grid[0], grid[1], grid[2], block[0], block[1], block[2], kMaxGrid[0],
            kMaxGrid[1], kMaxGrid[2]));
      }
    }
    if (threads > kMaxBlockThreads ||
        (kernel->launch_bounds > 0 && threads > kernel->launch_bounds)) {
      throw ExecError(fmt::format(
          "emulator: launching '{}' with {} threads per block, more than {} allows; a GPU "
          "refuses this launch",
          function, threads,
          kernel->launch_bounds > 0 && kernel->launch_bounds < kMaxBlockThreads
              ? fmt::format("its __launch_bounds__({})", kernel->launch_bounds)
              : fmt::format("a block ({} threads)", kMaxBlockThreads)));
    }
    int64_t dynamic = shared_bytes;
    if (auto* declared = static_cast<const int64_t*>(
            device_->variable(std::string(kDynamicSharedBytesPrefix) + function)))
      dynamic += *declared;
    TilecEmuSharedRange range{};
    device_->shared(&range, false);
    if (dynamic > range.dynamic_capacity) {
      throw ExecError(fmt::format(
          "emulator: kernel '{}' needs {} bytes of dynamic shared memory, more than any GPU "
          "block has ({}); use smaller tiles",
          function, dynamic, range.dynamic_capacity));
    }
    auto* status =
        static_cast<int32_t*>(device_->variable(std::string(kDeviceStatusPrefix) + function));
    if (status) *status = 0;

    std::vector<TilecEmuArg> emu_args(size_t(std::max(num_args, 1)));
    static_assert(sizeof(TilecEmuArg) == sizeof(TilecDeviceArg));
    if (num_args > 0) std::memcpy(emu_args.data(), args, sizeof(TilecEmuArg) * size_t(num_args));
    emulator::LaunchShape shape{{uint32_t(grid[0]), uint32_t(grid[1]), uint32_t(grid[2])},
                                {uint32_t(block[0]), uint32_t(block[1]), uint32_t(block[2])},
                                dynamic,
                                race_check_};
    int64_t blocks = grid[0] * grid[1] * grid[2];
    std::atomic<bool> failed{false};
    std::mutex error_mutex;
    std::string error;
    runtime::global_thread_pool().parallel_for(blocks, [&](int64_t begin, int64_t end) -> int32_t {
      emulator::BlockRunner runner(*device_, *kernel, emu_args.data(), shape);
      for (int64_t b = begin; b < end && !failed.load(std::memory_order_relaxed); ++b) {
        if (auto message = runner.run(b)) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!failed.exchange(true)) error = std::move(*message);
          return 1;
        }
      }
      return 0;
    });
    if (failed) throw ExecError(error);
    if (status && *status != 0) throw LaunchStatus{*status};
  }

  static constexpr TilecDeviceApi kApi{&api_alloc, &api_free, &api_copy, &api_launch};

  std::unique_ptr<emulator::DeviceLibrary> device_;
  bool race_check_;
};

// A shell word: quoted unless it is plain.
std::string shell_word(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789-_./=+,:") == std::string::npos)
    return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string rebuild_script(const std::vector<std::vector<std::string>>& commands) {
  std::string script =
      "#!/bin/sh\n"
      "# Rebuilds device.so from device.cu with the commands tilec's emulator used, e.g. after\n"
      "# adding printf calls to device.cu; the next run of the same kernel loads it from the\n"
      "# kernel cache. Debug it with gdb: `break <kernel name>` stops in every GPU thread.\n"
      "set -e\ncd \"$(dirname \"$0\")\"\n";
  for (const auto& command : commands) {
    std::string line;
    for (const auto& word : command) line += (line.empty() ? "" : " ") + shell_word(word);
    script += line + "\n";
  }
  return script;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class EmulatorBackend final : public ExecutionBackend {
 public:
  const std::string& name() const override { return name_; }
  bool available() const override { return unavailable_reason().empty(); }
  std::string unavailable_reason() const override {
    if (!cxx_identity()) {
      return fmt::format(
          "C++ compiler '{}' could not be run ('{} --version' failed); install one or set $CXX",
          fmt::join(cxx_command(), " "), fmt::join(cxx_command(), " "));
    }
    return native_execution_backend()->unavailable_reason();
  }
  std::string cache_identity(const target::Target&,
                             const target::Target& target_host) const override {
    bool race_check = race_check_requested();
    return fmt::format("emulator abi {} | dialects {} | {} | {} | {} | host: {}",
                       TILEC_EMU_ABI_VERSION, dialects_identity(), fmt::join(cxx_command(), " "),
                       cxx_identity().value_or("<unavailable>"),
                       fmt::join(compile_flags(race_check), " "),
                       native_execution_backend()->cache_identity(target_host, target_host));
  }
  std::string artifact_file_name() const override { return kArtifactName; }

  BuiltModule build(const backend::CodeArtifact& host, const backend::CodeArtifact& device,
                    const target::Target&, const target::Target& target_host,
                    const fs::path& output_dir) const override {
    EmulatorDialect dialect = dialect_for(device.format);
    std::vector<EmulatedKernel> kernels = dialect.kernels(device);
    bool race_check = race_check_requested();
    fs::path include = output_dir / kIncludeDir;
    auto write = [&](const fs::path& path, std::string_view text) {
      fs::create_directories(path.parent_path());
      write_binary_file(path, text);
    };
    write(include / "tilec/emu/abi.h", emulator::abi_header_text());
    write(include / "tilec/emu/device.h", emulator::device_header_text());
    for (const auto& [relative, text] : dialect.files) write(include / relative, text);
    write(output_dir / kDeviceSource, device.source);
    // The source is included, not pasted, so line numbers and debug information name
    // device.cu's own lines.
    std::string main = fmt::format(
        "// The device library of the emulator execution backend: {} compiled for the host.\n"
        "#include \"{}\"\n",
        dialect.language, kDeviceSource);
    for (const auto& k : kernels)
      main += fmt::format("TILEC_EMU_KERNEL({}, {})\n", k.name, k.launch_bounds);
    write(output_dir / kDeviceMain, main);

    std::vector<std::string> options;
    if (dialect.compile_options) options = dialect.compile_options(device);
    // Relative to output_dir: the commands run there, and rebuild.sh repeats them after a
    // user edits device.cu (printf debugging) wherever the kernel cache moved the entry.
    auto compiler = cxx_command();
    std::vector<std::string> compile = compiler;
    for (const auto& f : compile_flags(race_check)) compile.push_back(f);
    for (const auto& o : options) compile.push_back(o);
    compile.insert(compile.end(), {"-I", kIncludeDir, "-include", dialect.header, "-c", kDeviceMain,
                                   "-o", "device.o"});
    // Linked without -fsanitize: the engine, not ThreadSanitizer's run time, takes the calls.
    std::vector<std::string> link = compiler;
    link.insert(link.end(), {"-shared", "device.o", "-o", kDeviceLibrary});
    write(output_dir / kRebuildScript, rebuild_script({compile, link}));
    for (const auto& command : {compile, link}) run_in(output_dir, command, dialect);
    write(output_dir / "emulator.mode", race_check ? "racecheck\n" : "plain\n");
    return build_with_embedded_device_code(*this, host, "", target_host, output_dir);
  }

  std::shared_ptr<const LoadedModule> load(const fs::path& artifact) const override {
    auto library = runtime::KernelLibrary::open(artifact.string());
    fs::path dir = artifact.parent_path();
    if (!fs::exists(dir / kDeviceLibrary)) {
      throw ExecError(
          fmt::format("'{}' has no emulated device library ({}) beside it; it was not "
                      "built by the emulator execution backend",
                      artifact.string(), kDeviceLibrary));
    }
    auto device = std::make_unique<emulator::DeviceLibrary>(
        dir / kDeviceLibrary, read_text(dir / kDeviceSource), &emulator::BlockRunner::api());
    bool race_check = read_text(dir / "emulator.mode").rfind("racecheck", 0) == 0;
    return std::make_shared<EmulatorModule>(std::move(library), std::move(device), race_check);
  }

 private:
  static void run_in(const fs::path& dir, const std::vector<std::string>& command,
                     const EmulatorDialect& dialect) {
    // run_process has no working directory: `sh -c 'cd DIR && exec "$@"'` gives one.
    std::vector<std::string> argv = {"sh", "-c", "cd \"$0\" && exec \"$@\"", dir.string()};
    argv.insert(argv.end(), command.begin(), command.end());
    ProcessResult result = run_process(argv);
    if (result.exit_code == 0) return;
    throw ExecError(fmt::format(
        "emulator: the host C++ compiler could not build the {} device code (exit {}):\n{}\n"
        "command: {}\n{}; the emulator needs a C++17 compiler ($CXX, else c++)",
        dialect.language, result.exit_code, result.output, fmt::join(command, " "),
        failed_build_sources({dir.string()})));
  }

  std::string name_ = kEmulatorBackendName;
};

}  // namespace

void register_emulator_dialect(EmulatorDialect dialect, bool override) {
  if (dialect.format.empty() || dialect.header.empty() || !dialect.kernels) {
    throw ExecError(
        "register_emulator_dialect: a dialect needs a format, a header and a kernels "
        "function");
  }
  DialectRegistry& r = dialects();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto found = r.dialects.find(dialect.format);
  if (found != r.dialects.end() && !override) {
    if (found->second.header == dialect.header && found->second.kernels == dialect.kernels) return;
    throw ExecError(fmt::format(
        "register_emulator_dialect: format '{}' already has a dialect (header '{}'); pass "
        "override=true to replace it",
        dialect.format, found->second.header));
  }
  std::string format = dialect.format;
  r.dialects.insert_or_assign(format, std::move(dialect));
}

std::vector<std::string> list_emulator_dialects() {
  DialectRegistry& r = dialects();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [name, _] : r.dialects) out.push_back(name);
  return out;
}

const ExecutionBackendPtr& emulator_execution_backend() {
  static const ExecutionBackendPtr backend = std::make_shared<EmulatorBackend>();
  return backend;
}

void register_emulator_config_keys() {
  transform::register_pass_config_key(
      kEmulatorRaceCheckConfigKey, transform::PassConfigType::kBool, false,
      "emulator execution backend: report shared-memory races (two threads' conflicting "
      "accesses with no barrier between them)");
}

}  // namespace tilec::exec
