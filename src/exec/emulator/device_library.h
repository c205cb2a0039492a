// A device library the emulator built (tilec/emu/abi.h), loaded: its exported entry points,
// its kernels by name, and what error messages need from it -- the device source's lines
// and the source line of an instruction address (through addr2line on the library's
// debug information, when binutils is installed).
#pragma once

#include "tilec/emu/abi.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::exec::emulator {

class DeviceLibrary {
 public:
  // Loads `path` and binds `api` into it; throws ExecError when it is no device library.
  DeviceLibrary(const std::filesystem::path& path, std::string source, const TilecEmuApi* api);
  ~DeviceLibrary();
  DeviceLibrary(const DeviceLibrary&) = delete;
  DeviceLibrary& operator=(const DeviceLibrary&) = delete;

  // The kernel's description, or null when the library has no such kernel.
  const TilecEmuKernelInfo* kernel(std::string_view name) const;
  // The address of an exported variable (the module's status and dynamic-shared words).
  void* variable(const std::string& name) const;

  void shared(TilecEmuSharedRange* out, bool race_check) const { shared_(out, race_check); }
  void set_self(TilecEmuThread* self) const { set_self_(self); }

  // "device.cu:12: `  __syncthreads();`" for a line of the device source.
  std::string describe_line(int line) const;
  // The device source line of an instruction in the library, 0 when unknown.
  int line_of(const void* pc) const;
  // "'A_shared', byte 64 of 12288" for an offset into the thread-local block (the static
  // shared arrays: their symbols, from readelf, when binutils is installed), else "".
  std::string shared_array_at(uint64_t offset) const;

 private:
  void* handle_ = nullptr;
  std::string source_;
  std::vector<std::string_view> lines_;
  TilecEmuSharedFn shared_ = nullptr;
  TilecEmuSetSelfFn set_self_ = nullptr;
  mutable std::mutex mutex_;
  mutable std::map<const void*, int> pc_lines_;
  struct SharedArray {
    uint64_t offset, size;
    std::string name;
  };
  mutable std::optional<std::vector<SharedArray>> shared_arrays_;
  std::string file() const;  // the library's path as the kernel names it now
};

}  // namespace tilec::exec::emulator
