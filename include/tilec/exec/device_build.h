// The steps every device execution backend's build() shares (opencl, nvrtc, nvcc): the
// device code must be in the language the backend compiles, and once the device program
// is compiled and embedded (embed_files_source), the host code and the embedding are
// built into one library by the native backend and loaded by the backend itself. What
// differs between backends (the compiler, the files it writes) stays in each backend.
#pragma once

#include "tilec/backend/artifact.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/target/target.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace tilec::exec {

// Throws ExecError unless `device` is in `format`, naming `backend` and the `language`
// it builds.
void require_device_format(const backend::CodeArtifact& device, std::string_view format,
                           std::string_view backend, std::string_view language);

// The host code and `embedded` (C that defines the device program's symbols) built into
// one library in output_dir by the native backend for target_host, loaded with `self`.
BuiltModule build_with_embedded_device_code(const ExecutionBackend& self,
                                            const backend::CodeArtifact& host, std::string embedded,
                                            const target::Target& target_host,
                                            const std::filesystem::path& output_dir);

}  // namespace tilec::exec
