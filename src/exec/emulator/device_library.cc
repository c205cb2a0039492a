#include "device_library.h"

#include "tilec/exec/execution_backend.h"
#include "tilec/exec/process.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace tilec::exec::emulator {

namespace fs = std::filesystem;

namespace {

// The file a loaded address belongs to, as the kernel names it now: a kernel-cache entry
// is renamed into place after it was loaded, which dladdr does not see.
std::string mapped_file(uintptr_t address) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode, path;
    fields >> range >> perms >> offset >> dev >> inode;
    std::getline(fields >> std::ws, path);
    auto dash = range.find('-');
    if (dash == std::string::npos || path.empty()) continue;
    uintptr_t begin = std::stoull(range.substr(0, dash), nullptr, 16);
    uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (address >= begin && address < end) return path;
  }
  return "";
}

}  // namespace

DeviceLibrary::DeviceLibrary(const fs::path& path, std::string source, const TilecEmuApi* api)
    : source_(std::move(source)) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    throw ExecError(
        fmt::format("emulator: cannot load the device library '{}': {}; rebuild the "
                    "kernel (clear its kernel-cache entry)",
                    path.string(), dlerror()));
  }
  auto bind = reinterpret_cast<TilecEmuBindFn>(dlsym(handle_, "tilec_emu_bind"));
  shared_ = reinterpret_cast<TilecEmuSharedFn>(dlsym(handle_, "tilec_emu_shared"));
  set_self_ = reinterpret_cast<TilecEmuSetSelfFn>(dlsym(handle_, "tilec_emu_set_self"));
  if (!bind || !shared_ || !set_self_) {
    dlclose(handle_);
    throw ExecError(
        fmt::format("emulator: '{}' is not a device library of the emulator (it "
                    "exports no tilec_emu_bind); rebuild the kernel",
                    path.string()));
  }
  bind(api);
  std::string_view text = source_;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines_.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

DeviceLibrary::~DeviceLibrary() {
  if (handle_) dlclose(handle_);
}

const TilecEmuKernelInfo* DeviceLibrary::kernel(std::string_view name) const {
  auto fn = reinterpret_cast<TilecEmuKernelFn>(
      dlsym(handle_, fmt::format("tilec_emu_kernel_{}", name).c_str()));
  return fn ? fn() : nullptr;
}

void* DeviceLibrary::variable(const std::string& name) const {
  return dlsym(handle_, name.c_str());
}

std::string DeviceLibrary::describe_line(int line) const {
  if (line <= 0) return "device.cu (line unknown)";
  if (size_t(line) > lines_.size()) return fmt::format("device.cu:{}", line);
  std::string_view text = lines_[size_t(line) - 1];
  size_t first = text.find_first_not_of(" \t");
  text = first == std::string_view::npos ? std::string_view() : text.substr(first);
  return fmt::format("device.cu:{}: `{}`", line, text);
}

std::string DeviceLibrary::file() const {
  return mapped_file(reinterpret_cast<uintptr_t>(reinterpret_cast<const void*>(set_self_)));
}

std::string DeviceLibrary::shared_array_at(uint64_t offset) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!shared_arrays_) {
    // Block-scope `__shared__` arrays are thread-local symbols whose value is their offset
    // in the thread-local block: `readelf -sW` lists them with type TLS.
    shared_arrays_.emplace();
    ProcessResult result = run_process({"readelf", "-sW", "--demangle", file()});
    std::istringstream rows(result.exit_code == 0 ? result.output : "");
    for (std::string row; std::getline(rows, row);) {
      std::istringstream fields(row);
      std::string num, value, size, type, bind, vis, ndx, name;
      fields >> num >> value >> size >> type >> bind >> vis >> ndx;
      std::getline(fields >> std::ws, name);
      if (type != "TLS" || bind != "LOCAL" || name.empty()) continue;
      auto scope = name.rfind("::");
      shared_arrays_->push_back({std::stoull(value, nullptr, 16),
                                 std::stoull(size, nullptr, size.rfind("0x", 0) == 0 ? 16 : 10),
                                 scope == std::string::npos ? name : name.substr(scope + 2)});
    }
  }
  for (const auto& a : *shared_arrays_) {
    if (offset >= a.offset && offset < a.offset + a.size)
      return fmt::format("'{}', byte {} of {}", a.name, offset - a.offset, a.size);
  }
  return "";
}

int DeviceLibrary::line_of(const void* pc) const {
  if (!pc) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto found = pc_lines_.find(pc); found != pc_lines_.end()) return found->second;
  int line = 0;
  Dl_info info{};
  std::string file = mapped_file(reinterpret_cast<uintptr_t>(pc));
  if (dladdr(pc, &info) && info.dli_fbase && !file.empty()) {
    // The call's return address: the access is the instruction before it.
    uintptr_t offset =
        reinterpret_cast<uintptr_t>(pc) - reinterpret_cast<uintptr_t>(info.dli_fbase) - 1;
    ProcessResult result =
        run_process({"addr2line", "-i", "-e", file, fmt::format("{:#x}", offset)});
    if (result.exit_code == 0) {
      // Inlined frames come innermost first; the first in the device source is the line.
      std::istringstream frames(result.output);
      for (std::string frame; std::getline(frames, frame);) {
        auto colon = frame.rfind(':');
        if (colon == std::string::npos || frame.find("device.cu") == std::string::npos) continue;
        line = std::atoi(frame.c_str() + colon + 1);
        if (line > 0) break;
      }
    }
  }
  pc_lines_.emplace(pc, line);
  return line;
}

}  // namespace tilec::exec::emulator
