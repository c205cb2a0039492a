// `tilec compile FILE`: compiles a kernel file and prints or writes the
// requested artifacts (lowered IR, host source, device source; with -o also the
// built library).
#include "compile_options.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace tilec::cli {
namespace {

namespace fs = std::filesystem;

struct CompileCommandOptions : CompileOptions {
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

int run_compile(const CompileCommandOptions& options) {
  std::set<std::string> artifacts = requested_artifacts(options.emit);
  CompiledFile compiled = compile_kernel_file(options);
  const Kernel& kernel = compiled.kernel;

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
      auto options = std::make_shared<CompileCommandOptions>();
      add_compile_options(sub, *options);
      sub.add_option("--emit", options->emit, "artifacts: lowered,host,device (default all)")
          ->delimiter(',');
      sub.add_option("-o", options->output_dir,
                     "write the artifacts and the built library into this directory");
      return [options] { return run_compile(*options); };
    },
    "compile a kernel file and print or write its lowered IR and generated code"});

}  // namespace tilec::cli
