// `tilec compile FILE`: compiles a kernel file and prints or writes the
// requested artifacts (lowered IR, host source, device source; with -o also the
// built library).
#include "compile_options.h"

#include "tilec/target/nearest_name.h"

#include <fmt/format.h>

#include <algorithm>
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
  bool print_after_all = false;
  std::vector<std::string> print_after;
  std::vector<std::string> print_before;
  bool time_passes = false;
};

// Every name must be a pass of the pipeline the target lowers with (as `tilec backends`
// lists them); an unknown one names the pipeline, its passes and the nearest.
void check_pass_names(const std::vector<std::string>& names, const char* flag,
                      const transform::PassPipeline& pipeline) {
  std::vector<std::string> passes = pipeline.pass_names();
  for (const auto& name : names) {
    if (std::find(passes.begin(), passes.end(), name) != passes.end()) continue;
    throw EngineError(fmt::format("{}: pipeline '{}' has no pass '{}'{}; its passes, in order: {}",
                                  flag, pipeline.name(), name, target::did_you_mean(name, passes),
                                  target::join_names(passes)));
  }
}

// Adds the instruments the pass flags ask for; returns the timing one (or null).
std::shared_ptr<transform::PassTimingInstrument> add_pass_instruments(
    CompileCommandOptions& options) {
  bool printing =
      options.print_after_all || !options.print_after.empty() || !options.print_before.empty();
  if (printing) {
    backend::BackendContext context = resolve_context(options);
    const transform::PassPipeline& pipeline = context.module().get_pipeline(context.target());
    check_pass_names(options.print_after, "--print-after", pipeline);
    check_pass_names(options.print_before, "--print-before", pipeline);
    options.instruments.push_back(std::make_shared<transform::PrintPassesInstrument>(
        [](const ir::IRModule& mod) { return ir::print(mod); },
        transform::PrintPassesInstrument::Selection{options.print_after_all, options.print_after,
                                                    options.print_before}));
  }
  if (!options.time_passes) return nullptr;
  auto timing = std::make_shared<transform::PassTimingInstrument>();
  options.instruments.push_back(timing);
  return timing;
}

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

int run_compile(CompileCommandOptions& options) {
  std::set<std::string> artifacts = requested_artifacts(options.emit);
  auto timing = add_pass_instruments(options);
  CompiledFile compiled = compile_kernel_file(options);
  const Kernel& kernel = compiled.kernel;
  if (timing) {
    std::cerr << "// pass timings (" << kernel.context().target().str() << ")\n"
              << timing->report();
  }

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
      sub.add_flag("--print-after-all", options->print_after_all,
                   "print the IR after every pass of the target's pipeline (to stderr)");
      sub.add_option("--print-after", options->print_after,
                     "print the IR after these passes: PASS[,PASS] (names as `tilec backends` "
                     "lists the pipeline's passes)")
          ->delimiter(',');
      sub.add_option("--print-before", options->print_before,
                     "print the IR before these passes: PASS[,PASS]")
          ->delimiter(',');
      sub.add_flag("--time-passes", options->time_passes,
                   "report each pass's wall time and the total (to stderr)");
      return [options] { return run_compile(*options); };
    },
    "compile a kernel file and print or write its lowered IR and generated code"});

}  // namespace tilec::cli
