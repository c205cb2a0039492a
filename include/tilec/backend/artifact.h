// CodeArtifact: what a host or device codegen produces — source text and/or a
// binary plus the entry points it exports. It stands in for TVM's runtime.Module
// on the seed pages: tilec builds and loads code later, in an execution backend,
// so codegens hand over plain data rather than a loaded module.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tilec::backend {

// CodeArtifact::metadata key: the extension a file of this source is written with ("cu",
// "cl"); without it, the format.
inline constexpr const char* kFileExtensionMetadata = "file_extension";

struct CodeArtifact {
  std::string format{};  // "c", "cuda", "ptx", "cubin", "opencl", ...
  std::string source{};
  std::vector<uint8_t> binary{};
  std::vector<std::string> entry_points{};
  std::map<std::string, std::string> metadata{};

  friend bool operator==(const CodeArtifact&, const CodeArtifact&) = default;
};

}  // namespace tilec::backend
