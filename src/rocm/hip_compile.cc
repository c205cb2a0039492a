#include "tilec/rocm/hip_compile.h"

#include "hip_runtime.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/process.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <sstream>

namespace tilec::rocm {

namespace fs = std::filesystem;
using detail::HipRuntime;

namespace {

const std::vector<std::string>& common_options() {
  static const std::vector<std::string> options = {"-O3", "-ffp-contract=off", "-std=c++17"};
  return options;
}

std::string hipcc_path() {
  if (const char* forced = std::getenv("TILEC_HIPCC"); forced && *forced) return forced;
  return "hipcc";
}

}  // namespace

std::string hiprtc_unavailable_reason() {
  std::string reason;
  if (!detail::hip_runtime(&reason)) return "hiprtc: " + reason;
  return "";
}

std::string hipcc_unavailable_reason() {
  static const std::string reason = [] {
    exec::ProcessResult r = exec::run_process({hipcc_path(), "--version"});
    if (r.exit_code == 0) return std::string();
    return fmt::format(
        "hipcc: `{} --version` failed (exit {}): {}; install it (Debian: apt-get install hipcc) "
        "or name it with TILEC_HIPCC",
        hipcc_path(), r.exit_code, r.output.substr(0, 300));
  }();
  return reason;
}

std::string hiprtc_identity() {
  std::string reason;
  const HipRuntime* rt = detail::hip_runtime(&reason);
  if (!rt) return "hiprtc unavailable";
  int major = 0, minor = 0;
  rt->rtc_version(&major, &minor);
  return fmt::format("hiprtc {}.{} ({}) {}", major, minor, rt->path,
                     fmt::join(common_options(), " "));
}

std::string hipcc_identity() {
  static const std::string identity = [] {
    exec::ProcessResult r = exec::run_process({hipcc_path(), "--version"});
    return fmt::format("{} {} | {}", hipcc_path(), fmt::join(common_options(), " "), r.output);
  }();
  return identity;
}

std::string hiprtc_compile(const std::string& source, const std::string& name,
                           const std::string& arch) {
  std::string reason;
  const HipRuntime* rt = detail::hip_runtime(&reason);
  if (!rt) throw exec::ExecError("hiprtc: " + reason);
  detail::hiprtcProgram program = nullptr;
  if (int s = rt->rtc_create_program(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
      s != 0) {
    throw exec::ExecError(fmt::format("hiprtcCreateProgram failed: {}", rt->rtc_error_string(s)));
  }
  std::vector<std::string> options = {"--offload-arch=" + arch};
  options.insert(options.end(), common_options().begin(), common_options().end());
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  int status = rt->rtc_compile_program(program, int(argv.size()), argv.data());
  size_t log_size = 0;
  std::string log;
  if (rt->rtc_get_log_size(program, &log_size) == 0 && log_size > 1) {
    log.resize(log_size);
    rt->rtc_get_log(program, log.data());
    log.resize(strnlen(log.c_str(), log.size()));
  }
  std::string code;
  size_t code_size = 0;
  if (status == 0 && rt->rtc_get_code_size(program, &code_size) == 0 && code_size > 0) {
    code.resize(code_size);
    rt->rtc_get_code(program, code.data());
  }
  rt->rtc_destroy_program(&program);
  if (status != 0 || code.empty()) {
    throw exec::ExecError(
        fmt::format("hiprtc could not compile the HIP C++ of {} for {} ({}; options: {}):\n{}",
                    name, arch, status != 0 ? rt->rtc_error_string(status) : "no code object",
                    fmt::join(options, " "), log));
  }
  return code;
}

std::string hipcc_compile(const fs::path& source_file, const fs::path& code_object,
                          const std::string& arch) {
  // One device-only, unbundled code object (an ELF for `arch`), the form
  // hipModuleLoadData and llvm-objdump read.
  std::vector<std::string> argv = {hipcc_path(),
                                   "-x",
                                   "hip",
                                   "--offload-arch=" + arch,
                                   "--cuda-device-only",
                                   "--no-gpu-bundle-output",
                                   "-c"};
  argv.insert(argv.end(), common_options().begin(), common_options().end());
  argv.insert(argv.end(), {"-o", code_object.string(), source_file.string()});
  exec::ProcessResult r = exec::run_process(argv);
  if (r.exit_code != 0) {
    throw exec::ExecError(fmt::format("hipcc could not compile {} for {} (exit {}): `{}`\n{}",
                                      source_file.string(), arch, r.exit_code, fmt::join(argv, " "),
                                      r.output));
  }
  std::ifstream in(code_object, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (bytes.str().empty())
    throw exec::ExecError(fmt::format("hipcc wrote no code object to {}", code_object.string()));
  return bytes.str();
}

}  // namespace tilec::rocm
