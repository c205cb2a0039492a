// Files embedded in a kernel library as byte ranges between two global symbols, for
// execution backends that keep a device binary next to the host code in one artifact
// (one kernel-cache file): embed_files_source() is C with top-level asm .incbin
// directives, compiled with the host code; embedded_bytes() reads a range back from a
// dlopen'ed library. Also the error helper of the device APIs these backends provide.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::exec {

struct EmbeddedFile {
  std::string begin_symbol;
  std::string end_symbol;  // one byte (0) follows the data, so a text reads NUL-terminated
  std::filesystem::path file;
};

std::string embed_files_source(const std::string& comment, const std::vector<EmbeddedFile>& files);

// The bytes between two symbols of an open library; nullopt when either is missing.
std::optional<std::string> embedded_bytes(void* handle, const char* begin, const char* end);

// For TilecDeviceApi entries (abi.h): writes message, NUL-terminated and cut to err_len,
// into err and returns 1.
int32_t fail_device_call(char* err, int32_t err_len, const std::string& message);

// For a launch whose kernel set its status word (abi.h) to `status`: writes what the
// status means for device function `function` into err and returns status.
int32_t fail_device_status(char* err, int32_t err_len, int32_t status, const std::string& function);

// Writes bytes to path; throws ExecError naming the path on failure.
void write_binary_file(const std::filesystem::path& path, std::string_view bytes);

}  // namespace tilec::exec
