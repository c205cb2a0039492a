#include "tilec/engine/compile.h"

#include "kernel_state.h"
#include "tilec/codegen/c_launch_abi.h"
#include "tilec/engine/initialize.h"
#include "tilec/engine/kernel_cache.h"
#include "tilec/exec/failed_build.h"
#include "tilec/ir/check.h"
#include "tilec/ir/structural.h"
#include "tilec/transform/bounds_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>

namespace tilec {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFunctionKindAttr = "tilec.function_kind";

struct SplitModule {
  ir::IRModule host;
  ir::IRModule device;
};

SplitModule split_host_device(const ir::IRModule& lowered, const std::string& backend_name) {
  std::vector<ir::PrimFunc> host, device;
  for (const auto& func : lowered.functions()) {
    auto found = func->attrs.find(kFunctionKindAttr);
    const std::string* kind =
        found == func->attrs.end() ? nullptr : std::get_if<std::string>(&found->second);
    if (kind != nullptr && *kind == "host") {
      host.push_back(func);
    } else if (kind != nullptr && *kind == "device") {
      device.push_back(func);
    } else {
      throw EngineError(fmt::format(
          "backend '{}' lowered function '{}' without attr {} = \"host\" or \"device\"; its "
          "pipeline must end with the host/device split",
          backend_name, func->name, kFunctionKindAttr));
    }
  }
  if (host.empty()) {
    throw EngineError(fmt::format("backend '{}' produced no host function; nothing could be called",
                                  backend_name));
  }
  return {ir::IRModule(host, lowered.attrs()), ir::IRModule(device, lowered.attrs())};
}

std::string canonical_pass_config(const transform::PassConfig& config) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [key, value] : config) {
    std::visit([&, &key = key](const auto& v) { object[key] = v; }, value);
  }
  return object.dump();
}

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

fs::path make_private_build_dir() {
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  fs::path dir = fs::temp_directory_path() /
                 fmt::format("tilec-build-{}-{}-{:08x}", getpid(), counter.fetch_add(1), random());
  fs::create_directories(dir);
  return dir;
}

std::shared_ptr<const fs::path> owned_directory(fs::path dir) {
  return std::shared_ptr<const fs::path>(new fs::path(std::move(dir)), [](const fs::path* path) {
    std::error_code ignored;
    fs::remove_all(*path, ignored);
    delete path;
  });
}

// A backend whose pipeline has no bounds-check pass would run the kernel unchecked:
// asking for checks there is an error, never a silently unchecked run.
void require_bounds_checks(const backend::BackendContext& context, const ir::IRModule& lowered) {
  for (const auto& func : lowered.functions()) {
    if (transform::is_bounds_checked(func)) continue;
    throw EngineError(fmt::format(
        "bounds checking is not supported on target '{}': backend '{}' lowers '{}' without "
        "bounds checks (pass config {} = true, --bounds-check); run it on a CPU target "
        "(--target llvm or --target c), or leave bounds checking off",
        context.target().str(), context.name(), func->name, transform::kBoundsCheckConfigKey));
  }
}

struct GeneratedCode {
  backend::CodeArtifact host;
  backend::CodeArtifact device;
};

// Every task function the host entries call (codegen/c_launch_abi.h) must be one the
// device code defines; otherwise the kernel would fail only when loaded, with the linker's
// "undefined symbol".
void check_task_calls(const backend::BackendContext& context, const GeneratedCode& code) {
  auto calls = code.host.metadata.find(codegen::kTaskCallsMetadata);
  if (calls == code.host.metadata.end()) return;
  const auto& defined = code.device.entry_points;
  auto codegen = context.module().device_codegens.find(context.target().kind());
  std::string codegen_name = codegen == context.module().device_codegens.end()
                                 ? context.target().kind()
                                 : codegen->second.name;
  size_t begin = 0;
  const std::string& list = calls->second;
  while (begin <= list.size()) {
    size_t end = std::min(list.find(',', begin), list.size());
    std::string symbol = list.substr(begin, end - begin);
    begin = end + 1;
    if (symbol.empty() || std::find(defined.begin(), defined.end(), symbol) != defined.end())
      continue;
    throw EngineError(fmt::format(
        "backend '{}': the host code calls device task function '{}', which device codegen "
        "'{}' does not define (its entries: {}); a CPU-family device codegen whose kernels "
        "run through `native` or `llvm_jit` must subclass cpu::CodeGenCDevice "
        "(tilec/cpu/codegen_c_device.h), which adds the task function <kernel>_task of "
        "tilec/codegen/c_launch_abi.h to each device function, not plain codegen::CodeGenC",
        context.name(), symbol, codegen_name,
        defined.empty() ? std::string("none") : fmt::format("{}", fmt::join(defined, ", "))));
  }
}

GeneratedCode generate_code(const backend::BackendContext& context, const SplitModule& split) {
  GeneratedCode code;
  if (!split.device.empty()) code.device = context.codegen_device(split.device);
  if (context.execution_backend().enable_host_codegen) {
    code.host = context.codegen_host(context.preprocess_host_codegen(split.host));
  }
  if (!split.device.empty()) check_task_calls(context, code);
  return code;
}

}  // namespace

const char* version() {
  return TILEC_VERSION;
}

Kernel compile(const ir::IRModule& mod, std::string_view target,
               std::optional<std::string> target_host, std::string_view execution_backend,
               PassConfig pass_config) {
  auto start = std::chrono::steady_clock::now();
  initialize();
  if (mod.empty()) throw EngineError("the module has no functions; there is nothing to compile");

  std::optional<transform::ScopedPassContext> pass_scope;
  if (!pass_config.empty()) {
    const transform::PassContext& outer = transform::PassContext::current();
    transform::PassConfig merged = outer.config();
    for (auto& [key, value] : pass_config) merged[key] = value;
    pass_scope.emplace(transform::PassContext(std::move(merged), outer.instruments()));
  }
  ir::check_module_or_throw(mod);

  backend::BackendContext context =
      backend::create_backend_context(target, std::move(target_host), execution_backend);
  exec::ExecutionBackendPtr builder = exec::get_execution_backend(context.execution_backend().name);
  if (!builder->available()) {
    throw EngineError(fmt::format("execution backend '{}' is not available: {}", builder->name(),
                                  builder->unavailable_reason()));
  }

  ir::IRModule lowered = context.lower(mod);
  if (transform::bounds_check_enabled(transform::PassContext::current()))
    require_bounds_checks(context, lowered);
  SplitModule split = split_host_device(lowered, context.name());
  GeneratedCode code = generate_code(context, split);

  CacheKeyFields fields{ir::structural_hash(mod),
                        context.target().str(),
                        context.target_host().str(),
                        builder->name(),
                        builder->cache_identity(context.target(), context.target_host()),
                        canonical_pass_config(transform::PassContext::current().config()),
                        version(),
                        sha256_hex(code.host.source + '\0' + code.device.source)};

  auto state = std::make_shared<KernelState>(context, lowered);
  state->execution_backend = builder->name();
  state->cache_key = fields.key();
  state->host_source = code.host.source;
  state->device_source = code.device.source;

  // A failed build's directory is removed (its error carries the compiler's output) unless
  // TILEC_KEEP_FAILED_BUILDS keeps it for reading (exec/failed_build.h).
  auto build_into = [&](const fs::path& dir) {
    try {
      exec::BuiltModule built =
          builder->build(code.host, code.device, context.target(), context.target_host(), dir);
      state->module = built.module;
      state->library_path = built.artifact;
    } catch (...) {
      if (!exec::keep_failed_builds()) {
        std::error_code ignored;
        fs::remove_all(dir, ignored);
      }
      throw;
    }
  };

  if (auto cache_dir = cache_dir_from_environment()) {
    KernelCache cache(*cache_dir);
    if (auto entry = cache.lookup(fields, builder->artifact_file_name())) {
      try {
        state->module = builder->load(entry->artifact);
        state->library_path = entry->artifact;
        state->cache_hit = true;
      } catch (const std::exception& error) {
        cache.discard(state->cache_key, one_line(error.what()));
      }
    }
    if (!state->cache_hit) {
      fs::path build_dir = cache.make_build_dir(state->cache_key);
      build_into(build_dir);
      auto published = cache.publish(build_dir, fields, builder->artifact_file_name(),
                                     state->host_source, state->device_source);
      if (published) {
        state->library_path = published->artifact;
      } else {
        state->owned_dir = owned_directory(build_dir);
      }
    }
  } else {
    fs::path build_dir = make_private_build_dir();
    build_into(build_dir);
    state->owned_dir = owned_directory(build_dir);
  }

  for (const auto& host : split.host.functions()) {
    auto symbol = host->attrs.find("global_symbol");
    const std::string* global_symbol =
        symbol == host->attrs.end() ? nullptr : std::get_if<std::string>(&symbol->second);
    state->functions.push_back(
        {host->name, host, state->module->function(global_symbol ? *global_symbol : host->name)});
  }
  state->compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return Kernel(std::move(state));
}

}  // namespace tilec
