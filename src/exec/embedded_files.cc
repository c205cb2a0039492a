#include "tilec/exec/embedded_files.h"

#include "tilec/exec/execution_backend.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace tilec::exec {

std::string embed_files_source(const std::string& comment, const std::vector<EmbeddedFile>& files) {
  std::string out = "/* " + comment + " */\n";
  for (const auto& f : files) {
    out += fmt::format(
        "__asm__(\".section .rodata\\n.balign 16\\n.globl {0}\\n{0}:\\n.incbin \\\"{2}\\\"\\n"
        ".globl {1}\\n{1}:\\n.byte 0\\n.previous\\n\");\n",
        f.begin_symbol, f.end_symbol, f.file.string());
  }
  return out;
}

std::optional<std::string> embedded_bytes(void* handle, const char* begin, const char* end) {
  auto* b = static_cast<const char*>(dlsym(handle, begin));
  auto* e = static_cast<const char*>(dlsym(handle, end));
  if (!b || !e || e < b) return std::nullopt;
  return std::string(b, e);
}

int32_t fail_device_call(char* err, int32_t err_len, const std::string& message) {
  if (err && err_len > 0) {
    size_t n = std::min<size_t>(message.size(), size_t(err_len - 1));
    std::memcpy(err, message.data(), n);
    err[n] = '\0';
  }
  return 1;
}

int32_t fail_device_status(char* err, int32_t err_len, int32_t status,
                           const std::string& function) {
  fail_device_call(err, err_len,
                   status == TILEC_STATUS_DIVISION_BY_ZERO
                       ? fmt::format("integer division by zero in device function '{}'", function)
                       : fmt::format("device function '{}' reported status {}", function, status));
  return status;
}

void write_binary_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out) throw ExecError(fmt::format("cannot write '{}'", path.string()));
}

}  // namespace tilec::exec
