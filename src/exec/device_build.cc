#include "tilec/exec/device_build.h"

#include "tilec/exec/native_backend.h"

#include <fmt/format.h>

namespace tilec::exec {

void require_device_format(const backend::CodeArtifact& device, std::string_view format,
                           std::string_view backend, std::string_view language) {
  if (device.format == format) return;
  throw ExecError(fmt::format(
      "the {} execution backend builds {} device code, but the device code is in format "
      "'{}'; choose an execution backend that accepts '{}'",
      backend, language, device.format.empty() ? "<none>" : device.format, device.format));
}

BuiltModule build_with_embedded_device_code(const ExecutionBackend& self,
                                            const backend::CodeArtifact& host, std::string embedded,
                                            const target::Target& target_host,
                                            const std::filesystem::path& output_dir) {
  backend::CodeArtifact embed;
  embed.format = "c";
  embed.source = std::move(embedded);
  BuiltModule native =
      native_execution_backend()->build(host, embed, target_host, target_host, output_dir);
  return {native.artifact, self.load(native.artifact)};
}

}  // namespace tilec::exec
