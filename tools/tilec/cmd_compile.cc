// `tilec compile FILE`: compiles a kernel file and prints or writes the
// requested artifacts (lowered IR, host source, device source; with -o also the
// built library).
#include "command.h"

#include "tilec/ir/check.h"
#include "tilec/tilec.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace tilec::cli {
namespace {

namespace fs = std::filesystem;

struct CompileOptions {
  std::string file;
  std::string target = "auto";
  std::string target_host;
  std::string execution_backend = "auto";
  std::vector<std::string> defines;
  std::vector<std::string> emit;
  std::string output_dir;
};

const std::set<std::string> kArtifacts = {"lowered", "host", "device"};

std::set<std::string> requested_artifacts(const std::vector<std::string>& emit) {
  std::set<std::string> artifacts;
  for (const auto& list : emit) {
    std::stringstream items(list);
    for (std::string item; std::getline(items, item, ',');) {
      if (item.empty()) continue;
      if (!kArtifacts.count(item)) {
        throw EngineError(
            fmt::format("--emit: unknown artifact '{}'; choose from lowered, host, "
                        "device (comma-separated)",
                        item));
      }
      artifacts.insert(item);
    }
  }
  return artifacts.empty() ? kArtifacts : artifacts;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw EngineError(fmt::format("cannot write '{}'", path.string()));
}

int run_compile(const CompileOptions& options) {
  std::set<std::string> artifacts = requested_artifacts(options.emit);
  std::map<std::string, std::string> defines;
  for (const auto& define : options.defines) defines.insert(ir::parse_define(define));
  ir::IRModule mod = ir::parse_kernel_file(options.file, defines);
  // Checked here too (compile() checks again) so diagnostics show the source line.
  std::ifstream source_file(options.file, std::ios::binary);
  std::stringstream source;
  source << source_file.rdbuf();
  ir::check_module_or_throw(mod, options.file, source.str());
  std::optional<std::string> host;
  if (!options.target_host.empty()) host = options.target_host;
  Kernel kernel = compile(mod, options.target, host, options.execution_backend);

  std::map<std::string, std::pair<std::string, std::string>> texts = {
      {"lowered", {"lowered.py", ir::print(kernel.lowered())}},
      {"host", {"host.c", kernel.host_source()}},
      {"device", {"device.c", kernel.device_source()}}};
  if (options.output_dir.empty()) {
    for (const auto& name : {"lowered", "host", "device"}) {
      if (!artifacts.count(name)) continue;
      std::cout << fmt::format("// ---- {} ({} / {} / {}) ----\n", name, kernel.context().name(),
                               kernel.context().target().str(), kernel.execution_backend())
                << texts[name].second;
      if (!texts[name].second.empty() && texts[name].second.back() != '\n') std::cout << "\n";
    }
    return kExitOk;
  }
  fs::path dir(options.output_dir);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    throw EngineError(fmt::format("-o: cannot create '{}': {}", dir.string(), error.message()));
  }
  for (const auto& name : artifacts) write_text(dir / texts[name].first, texts[name].second);
  fs::path library = dir / (fs::path(options.file).stem().string() + ".so");
  fs::copy_file(kernel.library_path(), library, fs::copy_options::overwrite_existing, error);
  if (error) {
    throw EngineError(fmt::format("-o: cannot copy the built library to '{}': {}", library.string(),
                                  error.message()));
  }
  std::cerr << fmt::format("tilec: wrote {} artifact(s) and {} into {}\n", artifacts.size(),
                           library.filename().string(), dir.string());
  return kExitOk;
}

}  // namespace

TILEC_REGISTER_COMMAND(Command{
    "compile",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<CompileOptions>();
      sub.add_option("file", options->file, "kernel file (.py, TileLang DSL)")->required();
      sub.add_option("--target", options->target, "target, e.g. c or \"c -mcpu=znver4\"")
          ->capture_default_str();
      sub.add_option("--target-host", options->target_host, "host target (default: derived)");
      sub.add_option("--execution-backend", options->execution_backend,
                     "execution backend, e.g. native")
          ->capture_default_str();
      sub.add_option("-D,--define", options->defines,
                     "override a module constant: -D NAME=VALUE (repeatable)");
      sub.add_option("--emit", options->emit, "artifacts: lowered,host,device (default all)")
          ->delimiter(',');
      sub.add_option("-o", options->output_dir,
                     "write the artifacts and the built library into this directory");
      return [options] { return run_compile(*options); };
    },
    "compile a kernel file and print or write its lowered IR and generated code"});

}  // namespace tilec::cli
