#include "tilec/cuda/cuda_toolkit.h"

#include "tilec/exec/execution_backend.h"
#include "tilec/exec/failed_build.h"
#include "tilec/exec/process.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

namespace tilec::cuda {
using exec::ExecError;
using exec::ProcessResult;
using exec::run_process;
namespace fs = std::filesystem;

namespace {

// The NVRTC entry points tilec uses, declared here so tilec builds without the toolkit.
using nvrtcResult = int;
using nvrtcProgram = void*;
constexpr nvrtcResult kNvrtcSuccess = 0;

struct Nvrtc {
  std::string path;
  const char* (*get_error_string)(nvrtcResult) = nullptr;
  nvrtcResult (*version)(int*, int*) = nullptr;
  nvrtcResult (*create_program)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                const char* const*) = nullptr;
  nvrtcResult (*destroy_program)(nvrtcProgram*) = nullptr;
  nvrtcResult (*compile_program)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*get_log_size)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*get_log)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*get_cubin_size)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*get_cubin)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*get_ptx_size)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*get_ptx)(nvrtcProgram, char*) = nullptr;
};

std::vector<std::string> nvrtc_candidates() {
  if (const char* forced = std::getenv("TILEC_NVRTC_LIBRARY"); forced && *forced) return {forced};
  std::vector<std::string> out;
  std::vector<fs::path> roots = {cuda_toolkit_root(), "/usr/local/cuda"};
  for (const auto& root : roots)
    for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
      out.push_back((root / "lib64" / name).string());
  for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) out.push_back(name);
  return out;
}

// Loads NVRTC once per distinct candidate list (dlopen handles stay open: unloading a
// library other threads may be inside is unsafe). The result or the reason it failed.
struct NvrtcLoad {
  std::optional<Nvrtc> api;
  std::string reason;
};

NvrtcLoad load_nvrtc() {
  static std::mutex mutex;
  static std::map<std::string, NvrtcLoad> loaded;
  std::vector<std::string> candidates = nvrtc_candidates();
  std::string key = fmt::format("{}", fmt::join(candidates, ":"));
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = loaded.find(key); found != loaded.end()) return found->second;
  NvrtcLoad result;
  std::vector<std::string> failures;
  for (const auto& path : candidates) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      failures.push_back(fmt::format("{} ({})", path, why ? why : "not loadable"));
      continue;
    }
    Nvrtc api;
    api.path = path;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
      return fn != nullptr;
    };
    bool complete =
        sym(api.get_error_string, "nvrtcGetErrorString") && sym(api.version, "nvrtcVersion") &&
        sym(api.create_program, "nvrtcCreateProgram") &&
        sym(api.destroy_program, "nvrtcDestroyProgram") &&
        sym(api.compile_program, "nvrtcCompileProgram") &&
        sym(api.get_log_size, "nvrtcGetProgramLogSize") && sym(api.get_log, "nvrtcGetProgramLog") &&
        sym(api.get_cubin_size, "nvrtcGetCUBINSize") && sym(api.get_cubin, "nvrtcGetCUBIN") &&
        sym(api.get_ptx_size, "nvrtcGetPTXSize") && sym(api.get_ptx, "nvrtcGetPTX");
    if (!complete) {
      failures.push_back(
          fmt::format("{} (lacks the NVRTC entry points, e.g. nvrtcGetCUBIN)", path));
      continue;
    }
    result.api = api;
    break;
  }
  if (!result.api) {
    result.reason = fmt::format(
        "NVRTC could not be loaded; tried: {}. Install the CUDA toolkit (NVRTC) and set CUDA_HOME "
        "to its root, or TILEC_NVRTC_LIBRARY to the libnvrtc.so to use",
        fmt::join(failures, "; "));
  }
  loaded.emplace(key, result);
  return result;
}

Nvrtc nvrtc() {
  NvrtcLoad load = load_nvrtc();
  if (!load.api) throw ExecError(load.reason);
  return *load.api;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

fs::path cuda_toolkit_root() {
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) return home;
  return "/usr/local/cuda";
}

std::optional<fs::path> cuda_include_dir() {
  for (const fs::path& root : {cuda_toolkit_root(), fs::path("/usr/local/cuda")}) {
    std::error_code ignored;
    if (fs::exists(root / "include" / "cuda_fp16.h", ignored)) return root / "include";
  }
  return std::nullopt;
}

std::string nvrtc_unavailable_reason() {
  return load_nvrtc().reason;
}

std::string nvrtc_identity() {
  const Nvrtc& api = nvrtc();
  int major = 0, minor = 0;
  api.version(&major, &minor);
  return fmt::format("NVRTC {}.{} ({})", major, minor, api.path);
}

std::string cuda_target_arch(const std::string& arch_attr) {
  if (arch_attr.empty()) return "sm_80";
  static const std::regex form(R"(sm_\d+[af]?)");
  if (!std::regex_match(arch_attr, form)) {
    throw ExecError(fmt::format(
        "cuda target: -arch={} is not a CUDA architecture; write sm_<major><minor>, e.g. "
        "-arch=sm_80 or -arch=sm_90",
        arch_attr));
  }
  return arch_attr;
}

std::string cuda_device_arch(const std::string& target_arch, const std::string& requested) {
  if (requested.empty() || requested == target_arch) return target_arch;
  if (requested == target_arch + "a") return requested;
  throw ExecError(fmt::format(
      "cuda: the device code needs {}, which a target of -arch={} cannot run; compile for a "
      "target of -arch={}",
      requested, target_arch, requested.substr(0, requested.size() - (requested.back() == 'a'))));
}

CudaCompileResult nvrtc_compile(const std::string& source, const std::string& name,
                                const std::string& arch, const std::vector<std::string>& options) {
  const Nvrtc& api = nvrtc();
  nvrtcProgram program = nullptr;
  nvrtcResult status =
      api.create_program(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (status != kNvrtcSuccess) {
    throw ExecError(fmt::format("nvrtcCreateProgram failed: {}", api.get_error_string(status)));
  }
  std::vector<std::string> all = {"-arch=" + arch, "-std=c++17", "--fmad=false", "-default-device"};
  if (auto include = cuda_include_dir()) {
    all.push_back("-I" + include->string());
    // CUDA 13 keeps libcu++ (<cuda/std/...>, which header libraries include) apart.
    std::error_code ignored;
    if (fs::exists(*include / "cccl", ignored)) all.push_back("-I" + (*include / "cccl").string());
  }
  all.insert(all.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const auto& o : all) argv.push_back(o.c_str());
  status = api.compile_program(program, int(argv.size()), argv.data());
  size_t log_size = 0;
  api.get_log_size(program, &log_size);
  std::string log(log_size, '\0');
  if (log_size) api.get_log(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (status != kNvrtcSuccess) {
    api.destroy_program(&program);
    throw ExecError(fmt::format("NVRTC could not compile {} for {} ({}) with options {}:\n{}", name,
                                arch, api.get_error_string(status), fmt::join(all, " "), log));
  }
  CudaCompileResult result;
  result.log = log;
  size_t size = 0;
  api.get_cubin_size(program, &size);
  result.cubin.resize(size);
  if (size) api.get_cubin(program, result.cubin.data());
  size = 0;
  api.get_ptx_size(program, &size);
  result.ptx.resize(size);
  if (size) api.get_ptx(program, result.ptx.data());
  while (!result.ptx.empty() && result.ptx.back() == '\0') result.ptx.pop_back();
  api.destroy_program(&program);
  if (result.cubin.empty()) {
    throw ExecError(
        fmt::format("NVRTC produced no cubin for {} ({}); -arch must name a real "
                    "architecture (sm_XY), not a virtual one (compute_XY)",
                    name, arch));
  }
  return result;
}

std::string nvcc_program() {
  fs::path bundled = cuda_toolkit_root() / "bin" / "nvcc";
  std::error_code ignored;
  if (fs::exists(bundled, ignored)) return bundled.string();
  if (run_process({"nvcc", "--version"}).exit_code == 0) return "nvcc";
  return "";
}

std::string nvcc_unavailable_reason() {
  if (!nvcc_program().empty()) return "";
  return fmt::format(
      "nvcc not found: neither {} exists nor does `nvcc` run from PATH; install the CUDA "
      "toolkit and set CUDA_HOME to its root",
      (cuda_toolkit_root() / "bin" / "nvcc").string());
}

std::string nvcc_identity() {
  std::string program = nvcc_program();
  if (program.empty()) throw ExecError(nvcc_unavailable_reason());
  ProcessResult version = run_process({program, "--version"});
  std::string text = version.output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return program + ": " + text.substr(text.rfind('\n') + 1);
}

CudaCompileResult nvcc_compile(const fs::path& source_file, const fs::path& cubin_file,
                               const std::string& arch, const std::vector<std::string>& options) {
  std::string program = nvcc_program();
  if (program.empty()) throw ExecError(nvcc_unavailable_reason());
  std::vector<std::string> argv = {program,        "-cubin", "-arch=" + arch,    "-std=c++17",
                                   "--fmad=false", "-o",     cubin_file.string()};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(source_file.string());
  ProcessResult run = run_process(argv);
  if (run.exit_code != 0) {
    throw ExecError(fmt::format("nvcc failed (exit code {}) on {}; {}; command: {}\n{}",
                                run.exit_code, source_file.string(),
                                exec::failed_build_sources({source_file.string()}),
                                fmt::join(argv, " "), run.output));
  }
  CudaCompileResult result;
  result.cubin = read_file(cubin_file);
  result.log = run.output;
  if (result.cubin.empty())
    throw ExecError(fmt::format("nvcc wrote no cubin to {}", cubin_file.string()));
  return result;
}

}  // namespace tilec::cuda
