#include "tilec/exec/source_backend.h"

#include "tilec/exec/embedded_files.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace tilec::exec {
namespace {

namespace fs = std::filesystem;

constexpr const char* kArtifactName = "sources.txt";
constexpr const char* kListingHeader = "tilec source execution backend: nothing was built\n";

class SourceModule final : public LoadedModule {
 public:
  explicit SourceModule(fs::path artifact) : artifact_(std::move(artifact)) {}

  // Every host entry "exists": the module stands for code that was generated, not built.
  bool has_function(std::string_view) const override { return true; }

  HostFunction function(std::string_view global_symbol) const override {
    return [symbol = std::string(global_symbol),
            sources = artifact_.parent_path().string()](std::span<const TilecArg>) {
      throw ExecError(fmt::format(
          "'{}' was compiled with the source execution backend, which only generates code (kept "
          "in {}) and builds nothing, so it cannot run; compile with execution backend 'auto' "
          "(or one `tilec backends` lists as available) to run it",
          symbol, sources));
    };
  }

 private:
  fs::path artifact_;
};

std::string extension_of(const backend::CodeArtifact& artifact) {
  auto named = artifact.metadata.find(backend::kFileExtensionMetadata);
  if (named != artifact.metadata.end() && !named->second.empty()) return named->second;
  return artifact.format.empty() ? "txt" : artifact.format;
}

class SourceBackend final : public ExecutionBackend {
 public:
  const std::string& name() const override { return name_; }
  bool available() const override { return true; }
  std::string unavailable_reason() const override { return ""; }
  std::string cache_identity(const target::Target&, const target::Target&) const override {
    return "source (no compiler)";
  }
  std::string artifact_file_name() const override { return kArtifactName; }

  BuiltModule build(const backend::CodeArtifact& host, const backend::CodeArtifact& device,
                    const target::Target& target, const target::Target& target_host,
                    const fs::path& output_dir) const override {
    std::string listing = kListingHeader;
    listing += fmt::format("target: {}\nhost: {}\n", target.str(), target_host.str());
    if (!host.source.empty()) {
      std::string file = "host." + extension_of(host);
      write_binary_file(output_dir / file, host.source);
      listing += fmt::format("host code ({}): {}\n", host.format, file);
    }
    if (!device.source.empty()) {
      std::string file = "device." + extension_of(device);
      write_binary_file(output_dir / file, device.source);
      listing += fmt::format("device code ({}): {}\n", device.format, file);
    }
    fs::path artifact = output_dir / kArtifactName;
    write_binary_file(artifact, listing);
    return {artifact, load(artifact)};
  }

  std::shared_ptr<const LoadedModule> load(const fs::path& artifact) const override {
    std::ifstream in(artifact);
    std::string first;
    std::getline(in, first);
    if (first + "\n" != kListingHeader) {
      throw ExecError(
          fmt::format("'{}' is not a listing of the source execution backend", artifact.string()));
    }
    return std::make_shared<SourceModule>(artifact);
  }

 private:
  std::string name_ = kSourceBackendName;
};

}  // namespace

const ExecutionBackendPtr& source_execution_backend() {
  static const ExecutionBackendPtr backend = std::make_shared<SourceBackend>();
  return backend;
}

}  // namespace tilec::exec
