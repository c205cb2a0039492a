#include "tilec/opencl/opencl_execution_backend.h"

#include "tilec/exec/device_build.h"
#include "tilec/exec/device_module.h"
#include "tilec/exec/device_timer.h"
#include "tilec/exec/embedded_files.h"
#include "tilec/exec/sanitizer_runtime.h"

#include "tilec/exec/native_backend.h"
#include "tilec/exec/process.h"
#include "tilec/runtime/error.h"
#include "tilec/runtime/kernel_library.h"
#include "tilec/runtime/runtime_env.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace tilec::opencl {
// This execution backend implements the exec layer's interfaces throughout.
using namespace ::tilec::exec;
namespace {

namespace fs = std::filesystem;

constexpr const char* kArtifactName = "kernel.so";
constexpr const char* kBinarySymbol = "tilec_opencl_program_binary";
constexpr const char* kBinaryEndSymbol = "tilec_opencl_program_binary_end";
constexpr const char* kSourceSymbol = "tilec_opencl_program_source";
constexpr const char* kSourceEndSymbol = "tilec_opencl_program_source_end";
constexpr const char* kDeviceSymbol = "tilec_opencl_device";  // the target's -device

std::string cl_error_name(cl_int code) {
  switch (code) {
    case CL_DEVICE_NOT_FOUND:
      return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE:
      return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE:
      return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
      return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
      return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE:
      return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE:
      return "CL_INVALID_VALUE";
    case CL_INVALID_PLATFORM:
      return "CL_INVALID_PLATFORM";
    case CL_INVALID_DEVICE:
      return "CL_INVALID_DEVICE";
    case CL_INVALID_BINARY:
      return "CL_INVALID_BINARY";
    case CL_INVALID_BUILD_OPTIONS:
      return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_PROGRAM_EXECUTABLE:
      return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME:
      return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS:
      return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_INDEX:
      return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_SIZE:
      return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_WORK_DIMENSION:
      return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE:
      return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE:
      return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE:
      return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_BUFFER_SIZE:
      return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_MEM_OBJECT:
      return "CL_INVALID_MEM_OBJECT";
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return fmt::format("OpenCL error {}", code);
  }
}

std::string platform_info(cl_platform_id p, cl_platform_info what) {
  size_t size = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  clGetPlatformInfo(p, what, size, text.data(), nullptr);
  if (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

std::string device_info(cl_device_id d, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  clGetDeviceInfo(d, what, size, text.data(), nullptr);
  if (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

// tilec links LLVM 16; an OpenCL driver built on another LLVM (PoCL 3.1 on LLVM 15)
// would otherwise bind to tilec's LLVM symbols and crash compiling a kernel. Each
// driver the ICD loader will load (the libraries its vendor .icd files name) is loaded
// first with RTLD_DEEPBIND, so it and its dependencies resolve symbols among themselves;
// the loader's later dlopen of the same library returns that handle. AddressSanitizer
// and ThreadSanitizer abort on RTLD_DEEPBIND (google/sanitizers#611), so a sanitized
// tilec loads the drivers without it, and where its own LLVM is in the process too the
// backend is unavailable (OpenCLBackend::unavailable_reason): unisolated, PoCL's clang
// runs LLVM 16's passes on its LLVM 15 module and crashes in every kernel build.
void isolate_icd_drivers() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("OCL_ICD_VENDORS");
    fs::path vendors = env && *env ? fs::path(env) : fs::path("/etc/OpenCL/vendors");
    std::vector<fs::path> icds;
    std::error_code error;
    if (fs::is_directory(vendors, error)) {
      for (const auto& item : fs::directory_iterator(vendors, error))
        if (item.path().extension() == ".icd") icds.push_back(item.path());
    } else if (vendors.extension() == ".icd") {
      icds.push_back(vendors);
    }
    for (const auto& icd : icds) {
      std::ifstream in(icd);
      std::string library;
      std::getline(in, library);
      while (!library.empty() && std::isspace(static_cast<unsigned char>(library.back())))
        library.pop_back();
      int isolated = sanitizer_forbids_deepbind() ? 0 : RTLD_DEEPBIND;
      if (!library.empty()) dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | isolated);
    }
  });
}

struct DeviceEntry {
  cl_platform_id platform;
  cl_device_id device;
  int platform_index, device_index;
  std::string label;  // "platform / device"
};

// Every device of every platform; the cl_int of a failed platform query in *status.
std::vector<DeviceEntry> enumerate_devices(cl_int* status) {
  isolate_icd_drivers();
  cl_uint num_platforms = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &num_platforms);
  if (status) *status = err;
  std::vector<DeviceEntry> out;
  if (err != CL_SUCCESS || num_platforms == 0) return out;
  std::vector<cl_platform_id> platforms(num_platforms);
  clGetPlatformIDs(num_platforms, platforms.data(), nullptr);
  for (cl_uint p = 0; p < num_platforms; ++p) {
    cl_uint num_devices = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &num_devices) != CL_SUCCESS)
      continue;
    std::vector<cl_device_id> devices(num_devices);
    clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, num_devices, devices.data(), nullptr);
    for (cl_uint d = 0; d < num_devices; ++d) {
      out.push_back({platforms[p], devices[d], int(p), int(d),
                     platform_info(platforms[p], CL_PLATFORM_NAME) + " / " +
                         device_info(devices[d], CL_DEVICE_NAME)});
    }
  }
  return out;
}

std::string no_platform_reason(cl_int status) {
  return fmt::format(
      "no OpenCL platform found (clGetPlatformIDs: {}); install an OpenCL driver (e.g. Debian's "
      "pocl-opencl-icd) and check that OCL_ICD_VENDORS, if set, names a directory of .icd files",
      cl_error_name(status == CL_SUCCESS ? -1001 : status));
}

// The device the target's `device` attribute selects; throws ExecError listing them.
DeviceEntry select_device(const std::string& selector) {
  cl_int status = CL_SUCCESS;
  std::vector<DeviceEntry> devices = enumerate_devices(&status);
  if (devices.empty()) throw ExecError(no_platform_reason(status));
  if (selector.empty()) return devices.front();
  static const std::regex index_form(R"((\d+):(\d+))");
  std::smatch m;
  std::vector<std::string> labels;
  for (const auto& d : devices)
    labels.push_back(fmt::format("{}:{} {}", d.platform_index, d.device_index, d.label));
  if (std::regex_match(selector, m, index_form)) {
    int p = std::stoi(m[1]), d = std::stoi(m[2]);
    for (const auto& e : devices)
      if (e.platform_index == p && e.device_index == d) return e;
  } else {
    for (const auto& e : devices)
      if (e.label.find(selector) != std::string::npos) return e;
  }
  throw ExecError(
      fmt::format("no OpenCL device matches -device={}; devices here: {}. Use a name fragment or "
                  "PLATFORM:DEVICE indices",
                  selector, fmt::join(labels, "; ")));
}

// One context and in-order queue per selected device, shared by every module using it.
struct DeviceContext {
  DeviceEntry entry;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  size_t max_work_group_size = 0;
  cl_ulong local_mem_size = 0;  // CL_DEVICE_LOCAL_MEM_SIZE: __local bytes one work-group may use
  std::mutex mutex;             // serializes launches and copies on the queue
  bool profiling = false;       // the queue records launch times (CL_QUEUE_PROFILING_ENABLE)
};

std::shared_ptr<DeviceContext> device_context(const std::string& selector) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<DeviceContext>> contexts;
  DeviceEntry entry = select_device(selector);
  std::string key = fmt::format("{}:{}", entry.platform_index, entry.device_index);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = contexts[key].lock()) return found;
  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &entry.device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) {
    throw ExecError(
        fmt::format("cannot create an OpenCL context on {}: {}", entry.label, cl_error_name(err)));
  }
  // Profiling on, so `tilec bench`/`tune` time launches with the device's own clock
  // (CL_PROFILING_COMMAND_START/END); a device that refuses it gets a plain queue.
  bool profiling = true;
  cl_command_queue queue =
      clCreateCommandQueue(context, entry.device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) {
    profiling = false;
    queue = clCreateCommandQueue(context, entry.device, 0, &err);
  }
  if (err != CL_SUCCESS) {
    clReleaseContext(context);
    throw ExecError(fmt::format("cannot create an OpenCL command queue on {}: {}", entry.label,
                                cl_error_name(err)));
  }
  auto ctx = std::shared_ptr<DeviceContext>(
      new DeviceContext{entry, context, queue, 0, 0, {}, profiling}, [](DeviceContext* c) {
        clReleaseCommandQueue(c->queue);
        clReleaseContext(c->context);
        delete c;
      });
  clGetDeviceInfo(entry.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t),
                  &ctx->max_work_group_size, nullptr);
  clGetDeviceInfo(entry.device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(cl_ulong), &ctx->local_mem_size,
                  nullptr);
  contexts[key] = ctx;
  return ctx;
}

std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// clBuildProgram options for `source` on `device`. PoCL 3.1 (Debian 12's) miscompiles, with its
// optimizer on, a kernel whose loop holds barriers and, between them, a per-work-item guard around
// a loop updating a private accumulator: every guarded work-item's accumulator comes out as its
// value before the loop (issue 33: gemm with block_N=1 and two k-tiles wrote zeros; reduced, a
// 13-line kernel with `if (tid < 64) for (j..32) acc += S[j];` between two barriers fails the
// same way under every POCL_WORK_GROUP_METHOD). No rewrite of our source that keeps the guarded
// loop avoided it, so on PoCL a kernel containing a barrier is built without optimization:
// slower, never wrong. Kernels without barriers (no such region) keep the optimizer.
std::string program_build_options(cl_device_id device, const std::string& source) {
  cl_platform_id platform = nullptr;
  clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
  bool pocl = platform && platform_info(platform, CL_PLATFORM_NAME)
                                  .find(
                                      "Portable Computing "
                                      "Language") != std::string::npos;
  if (pocl && source.find("barrier(") != std::string::npos) return "-cl-opt-disable";
  return "";
}

// Builds source for ctx's device; throws ExecError with the log and the cited lines.
cl_program build_from_source(DeviceContext& ctx, const std::string& source,
                             const std::string& kept_at) {
  const char* text = source.c_str();
  size_t length = source.size();
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(ctx.context, 1, &text, &length, &err);
  if (err != CL_SUCCESS) {
    throw ExecError(fmt::format("clCreateProgramWithSource failed: {}", cl_error_name(err)));
  }
  std::string options = program_build_options(ctx.entry.device, source);
  err = clBuildProgram(program, 1, &ctx.entry.device, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::string log = build_log(program, ctx.entry.device);
    clReleaseProgram(program);
    std::vector<std::string> cited = source_lines_cited_by_build_log(log, source);
    throw ExecError(fmt::format(
        "OpenCL build of the generated device code failed on {} ({}); the source is kept at "
        "{}\n{}build log:\n{}",
        ctx.entry.label, cl_error_name(err), kept_at,
        cited.empty() ? std::string()
                      : fmt::format("generated source lines the log points at:\n  {}\n",
                                    fmt::join(cited, "\n  ")),
        log));
  }
  return program;
}

std::vector<unsigned char> program_binary(cl_program program) {
  size_t size = 0;
  clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
  std::vector<unsigned char> binary(size);
  unsigned char* data = binary.data();
  if (size) clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr);
  return binary;
}

std::string c_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// C that embeds the binary and source files as symbols (embedded_files.h), and the selector.
std::string embed_source(const fs::path& binary, const fs::path& source,
                         const std::string& device) {
  return embed_files_source("The OpenCL program of this kernel library (opencl execution backend).",
                            {{kBinarySymbol, kBinaryEndSymbol, binary},
                             {kSourceSymbol, kSourceEndSymbol, source}}) +
         fmt::format("const char {}[] = \"{}\";\n", kDeviceSymbol, c_escaped(device));
}

class OpenCLModule;

// ---- TilecDeviceApi over one module (abi.h) ----
class OpenCLModule final : public DeviceModule, public DeviceTimedModule {
 public:
  OpenCLModule(std::shared_ptr<runtime::KernelLibrary> library,
               std::shared_ptr<DeviceContext> device, cl_program program)
      : DeviceModule(std::move(library), &kApi), device_(std::move(device)), program_(program) {}
  ~OpenCLModule() override {
    for (auto& [name, kernel] : kernels_) clReleaseKernel(kernel.kernel);
    clReleaseProgram(program_);
  }

  // The summed CL_PROFILING_COMMAND_START..END of this module's launches since the last take.
  std::optional<double> take_device_time_ms() const override {
    if (!device_->profiling) return std::nullopt;
    std::lock_guard<std::mutex> lock(device_->mutex);
    if (!timed_) return std::nullopt;
    double ms = double(device_ns_) * 1e-6;
    device_ns_ = 0;
    return ms;
  }
  std::string device_clock() const override {
    return device_->profiling ? "OpenCL profiling events" : "";
  }

 private:
  static int32_t api_alloc(void* device, int64_t nbytes, void** out, char* err, int32_t len) {
    OpenCLModule& m = of<OpenCLModule>(device);
    cl_int status = CL_SUCCESS;
    // Zero-sized buffers are invalid in OpenCL; a kernel never touches an empty tensor.
    cl_mem mem = clCreateBuffer(m.device_->context, CL_MEM_READ_WRITE,
                                size_t(std::max<int64_t>(nbytes, 1)), nullptr, &status);
    if (status != CL_SUCCESS) {
      return fail_device_call(err, len,
                              fmt::format("OpenCL: cannot allocate {} bytes on {}: {}", nbytes,
                                          m.device_->entry.label, cl_error_name(status)));
    }
    *out = mem;
    return 0;
  }

  // Each module runs on its device's one in-order command queue.
  static int32_t no_streams(char* err, int32_t len) {
    return fail_device_call(
        err, len,
        "OpenCL: a stream was given, but the opencl execution backend runs every kernel on its "
        "device's own command queue; call it without a stream");
  }

  static int32_t api_free(void*, void* buffer) {
    return clReleaseMemObject(static_cast<cl_mem>(buffer)) == CL_SUCCESS ? 0 : 1;
  }

  static int32_t api_copy(void* device, void* buffer, void* host, int64_t nbytes, int32_t kind,
                          void* stream, char* err, int32_t len) {
    if (stream != nullptr) return no_streams(err, len);
    if (nbytes <= 0) return 0;
    OpenCLModule& m = of<OpenCLModule>(device);
    std::lock_guard<std::mutex> lock(m.device_->mutex);
    cl_mem mem = static_cast<cl_mem>(buffer);
    cl_int status = kind == kTilecCopyHostToDevice
                        ? clEnqueueWriteBuffer(m.device_->queue, mem, CL_TRUE, 0, size_t(nbytes),
                                               host, 0, nullptr, nullptr)
                        : clEnqueueReadBuffer(m.device_->queue, mem, CL_TRUE, 0, size_t(nbytes),
                                              host, 0, nullptr, nullptr);
    if (status != CL_SUCCESS) {
      return fail_device_call(
          err, len,
          fmt::format("OpenCL: copying {} bytes {} the device failed: {}", nbytes,
                      kind == kTilecCopyHostToDevice ? "to" : "from", cl_error_name(status)));
    }
    return 0;
  }

  static int32_t api_launch(void* device, const char* function, const int64_t grid[3],
                            const int64_t block[3], int64_t shared_bytes,
                            const TilecDeviceArg* args, int32_t num_args, void* stream, char* err,
                            int32_t len) {
    if (stream != nullptr) return no_streams(err, len);
    OpenCLModule& m = of<OpenCLModule>(device);
    if (shared_bytes != 0) {
      return fail_device_call(
          err, len,
          "OpenCL: dynamic shared memory is not supported; kernels declare their "
          "__local tiles statically");
    }
    std::lock_guard<std::mutex> lock(m.device_->mutex);
    cl_kernel kernel = nullptr;
    cl_uint kernel_args = 0;
    if (auto found = m.kernels_.find(function); found != m.kernels_.end()) {
      kernel = found->second.kernel;
      kernel_args = found->second.num_args;
    } else {
      cl_int status = CL_SUCCESS;
      kernel = clCreateKernel(m.program_, function, &status);
      if (status != CL_SUCCESS) {
        return fail_device_call(err, len,
                                fmt::format("OpenCL: the program has no kernel '{}': {}", function,
                                            cl_error_name(status)));
      }
      status =
          clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof kernel_args, &kernel_args, nullptr);
      if (status != CL_SUCCESS) {
        clReleaseKernel(kernel);
        return fail_device_call(
            err, len,
            fmt::format("OpenCL: cannot query the parameters of kernel '{}': {}", function,
                        cl_error_name(status)));
      }
      m.kernels_.emplace(function, Kernel{kernel, kernel_args});
    }
    // One parameter more than the launch passes is the kernel's status word (abi.h).
    bool has_status = kernel_args == cl_uint(num_args) + 1;
    if (!has_status && kernel_args != cl_uint(num_args)) {
      return fail_device_call(
          err, len,
          fmt::format("OpenCL: kernel '{}' takes {} parameters, but the launch passes {}", function,
                      kernel_args, num_args));
    }
    int64_t threads = block[0] * block[1] * block[2];
    if (threads > int64_t(m.device_->max_work_group_size)) {
      return fail_device_call(
          err, len,
          fmt::format("OpenCL: kernel '{}' uses {} threads per block, but {} allows at "
                      "most {}; lower T.Kernel's threads=",
                      function, threads, m.device_->entry.label, m.device_->max_work_group_size));
    }
    // The device's limit is known only now (the target names no device): a kernel whose
    // __local tiles do not fit is refused with what to change, before the driver fails it.
    cl_ulong local_bytes = 0;
    if (clGetKernelWorkGroupInfo(kernel, m.device_->entry.device, CL_KERNEL_LOCAL_MEM_SIZE,
                                 sizeof local_bytes, &local_bytes, nullptr) == CL_SUCCESS &&
        m.device_->local_mem_size > 0 && local_bytes > m.device_->local_mem_size) {
      return fail_device_call(
          err, len,
          fmt::format("OpenCL: kernel '{}' needs {} bytes of shared (__local) memory per block, "
                      "but {} allows at most {} (CL_DEVICE_LOCAL_MEM_SIZE); use smaller shared "
                      "tiles (smaller blocks) or fewer T.Pipelined stages",
                      function, local_bytes, m.device_->entry.label, m.device_->local_mem_size));
    }
    for (int32_t i = 0; i < num_args; ++i) {
      const TilecDeviceArg& a = args[i];
      cl_int status = CL_SUCCESS;
      if (a.kind == kTilecDeviceArgBuffer) {
        cl_mem mem = static_cast<cl_mem>(a.v.buffer);
        status = clSetKernelArg(kernel, cl_uint(i), sizeof mem, &mem);
      } else if (a.kind == kTilecDeviceArgFloat) {
        if (a.bits == 64) {
          cl_double v = a.v.f;
          status = clSetKernelArg(kernel, cl_uint(i), sizeof v, &v);
        } else {
          cl_float v = cl_float(a.v.f);
          status = clSetKernelArg(kernel, cl_uint(i), sizeof v, &v);
        }
      } else if (a.bits == 64) {
        cl_long v = a.v.i;
        status = clSetKernelArg(kernel, cl_uint(i), sizeof v, &v);
      } else if (a.bits == 8) {
        cl_char v = cl_char(a.v.i);
        status = clSetKernelArg(kernel, cl_uint(i), sizeof v, &v);
      } else if (a.bits == 16) {
        cl_short v = cl_short(a.v.i);
        status = clSetKernelArg(kernel, cl_uint(i), sizeof v, &v);
      } else {
        cl_int v = cl_int(a.v.i);
        status = clSetKernelArg(kernel, cl_uint(i), sizeof v, &v);
      }
      if (status != CL_SUCCESS) {
        return fail_device_call(err, len,
                                fmt::format("OpenCL: argument #{} of kernel '{}': {}", i, function,
                                            cl_error_name(status)));
      }
    }
    cl_int word = 0;
    cl_mem status_word = nullptr;
    if (has_status) {
      cl_int status = CL_SUCCESS;
      status_word = clCreateBuffer(m.device_->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   sizeof word, &word, &status);
      if (status == CL_SUCCESS)
        status = clSetKernelArg(kernel, cl_uint(num_args), sizeof status_word, &status_word);
      if (status != CL_SUCCESS) {
        if (status_word) clReleaseMemObject(status_word);
        return fail_device_call(err, len,
                                fmt::format("OpenCL: the status word of kernel '{}': {}", function,
                                            cl_error_name(status)));
      }
    }
    size_t global[3], local[3];
    for (int d = 0; d < 3; ++d) {
      local[d] = size_t(block[d]);
      global[d] = size_t(grid[d] * block[d]);
    }
    cl_event event = nullptr;
    cl_int status = clEnqueueNDRangeKernel(m.device_->queue, kernel, 3, nullptr, global, local, 0,
                                           nullptr, m.device_->profiling ? &event : nullptr);
    if (status == CL_SUCCESS) status = clFinish(m.device_->queue);
    if (event) {
      cl_ulong start = 0, end = 0;
      if (status == CL_SUCCESS &&
          clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                  nullptr) == CL_SUCCESS &&
          clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
              CL_SUCCESS &&
          end >= start) {
        m.device_ns_ += end - start;
        m.timed_ = true;
      }
      clReleaseEvent(event);
    }
    if (status_word) {
      if (status == CL_SUCCESS)
        status = clEnqueueReadBuffer(m.device_->queue, status_word, CL_TRUE, 0, sizeof word, &word,
                                     0, nullptr, nullptr);
      clReleaseMemObject(status_word);
    }
    if (status != CL_SUCCESS) {
      return fail_device_call(
          err, len,
          fmt::format("OpenCL: launching kernel '{}' ({}x{}x{} blocks of {}x{}x{} threads) "
                      "failed: {}",
                      function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                      cl_error_name(status)));
    }
    if (word != 0) return fail_device_status(err, len, word, function);
    return 0;
  }

  static constexpr TilecDeviceApi kApi{&api_alloc, &api_free, &api_copy, &api_launch};

  std::shared_ptr<DeviceContext> device_;
  cl_program program_;
  struct Kernel {
    cl_kernel kernel;
    cl_uint num_args;  // one more than a launch passes: the status word
  };
  std::map<std::string, Kernel, std::less<>> kernels_;  // guarded by device_->mutex
  // Device time of the launches since the last take_device_time_ms (guarded likewise).
  mutable cl_ulong device_ns_ = 0;
  mutable bool timed_ = false;
};

class OpenCLBackend final : public ExecutionBackend {
 public:
  const std::string& name() const override { return name_; }

  bool available() const override { return unavailable_reason().empty(); }

  std::string unavailable_reason() const override {
    if (sanitizer_forbids_deepbind() && process_has_global_llvm())
      return "OpenCL drivers cannot be isolated from tilec's LLVM in a sanitized process: "
             "AddressSanitizer and ThreadSanitizer refuse dlopen(RTLD_DEEPBIND) "
             "(google/sanitizers#611), and PoCL's LLVM would bind to tilec's and crash "
             "building a kernel; run OpenCL in the plain build (scripts/test.sh), or "
             "sanitize a tilec configured with -DTILEC_LLVM=OFF";
    cl_int status = CL_SUCCESS;
    if (enumerate_devices(&status).empty()) return no_platform_reason(status);
    return native_execution_backend()->unavailable_reason();
  }

  std::string cache_identity(const target::Target& target,
                             const target::Target& target_host) const override {
    DeviceEntry d = select_device(target.get_string("device"));
    // The selector is embedded in the library (load() reopens the same device).
    // "pocl-noopt-barriers": binaries cached before the PoCL workaround (see
    // program_build_options) were miscompiled; this retires them.
    return fmt::format("{} ({}) | {} | {} | pocl-noopt-barriers | host: {}", d.label,
                       target.get_string("device"), device_info(d.device, CL_DRIVER_VERSION),
                       device_info(d.device, CL_DEVICE_VERSION),
                       native_execution_backend()->cache_identity(target_host, target_host));
  }

  std::string artifact_file_name() const override { return kArtifactName; }

  BuiltModule build(const backend::CodeArtifact& host, const backend::CodeArtifact& device,
                    const target::Target& target, const target::Target& target_host,
                    const fs::path& output_dir) const override {
    require_device_format(device, "opencl", kOpenCLBackendName, "OpenCL C");
    auto ctx = device_context(target.get_string("device"));
    fs::path source_path = output_dir / "device.cl";
    write_binary_file(source_path, device.source);
    cl_program program = build_from_source(*ctx, device.source, source_path.string());
    std::vector<unsigned char> binary = program_binary(program);
    clReleaseProgram(program);
    fs::path binary_path = output_dir / "device.clbin";
    write_binary_file(
        binary_path, std::string_view(reinterpret_cast<const char*>(binary.data()), binary.size()));
    return build_with_embedded_device_code(
        *this, host, embed_source(binary_path, source_path, target.get_string("device")),
        target_host, output_dir);
  }

  std::shared_ptr<const LoadedModule> load(const fs::path& artifact) const override {
    auto library = runtime::KernelLibrary::open(artifact.string());
    void* handle = dlopen(artifact.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw ExecError(fmt::format("cannot reopen '{}': {}", artifact.string(), dlerror()));
    auto binary = embedded_bytes(handle, kBinarySymbol, kBinaryEndSymbol);
    auto source = embedded_bytes(handle, kSourceSymbol, kSourceEndSymbol);
    auto* selector = static_cast<const char*>(dlsym(handle, kDeviceSymbol));
    std::string device = selector ? selector : "";
    dlclose(handle);  // `library` keeps it loaded
    if (!binary || !source) {
      throw ExecError(
          fmt::format("kernel library '{}' embeds no OpenCL program ({} missing); "
                      "it was not built by the opencl execution backend",
                      artifact.string(), kBinarySymbol));
    }
    auto ctx = device_context(device);
    cl_program program = nullptr;
    if (!binary->empty()) {
      const auto* bytes = reinterpret_cast<const unsigned char*>(binary->data());
      size_t size = binary->size();
      cl_int status = CL_SUCCESS, binary_status = CL_SUCCESS;
      program = clCreateProgramWithBinary(ctx->context, 1, &ctx->entry.device, &size, &bytes,
                                          &binary_status, &status);
      if (status == CL_SUCCESS && binary_status == CL_SUCCESS &&
          clBuildProgram(program, 1, &ctx->entry.device,
                         program_build_options(ctx->entry.device, *source).c_str(), nullptr,
                         nullptr) == CL_SUCCESS) {
        // built from the cached binary
      } else {
        if (program) clReleaseProgram(program);
        program = nullptr;
      }
    }
    if (!program) program = build_from_source(*ctx, *source, artifact.string());
    return std::make_shared<OpenCLModule>(std::move(library), ctx, program);
  }

 private:
  std::string name_ = kOpenCLBackendName;
};

}  // namespace

std::vector<std::string> list_opencl_devices() {
  std::vector<std::string> out;
  for (const auto& d : enumerate_devices(nullptr)) out.push_back(d.label);
  return out;
}

std::optional<int64_t> opencl_local_memory_bytes(const std::string& selector) {
  try {
    DeviceEntry device = select_device(selector);
    cl_ulong bytes = 0;
    if (clGetDeviceInfo(device.device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(cl_ulong), &bytes,
                        nullptr) != CL_SUCCESS ||
        bytes == 0)
      return std::nullopt;
    return int64_t(bytes);
  } catch (const ExecError&) {
    // No platform, or no device matches: the launch reports it, naming the devices here.
    return std::nullopt;
  }
}

std::vector<std::string> source_lines_cited_by_build_log(const std::string& log,
                                                         const std::string& source) {
  std::vector<std::string> lines;
  std::istringstream in(source);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  // Clang-based compilers write "<source>:12:5: error: ..." (PoCL: "error: FILE:12:5: ...").
  static const std::regex citation(R"(:(\d+):(\d+):)");
  std::vector<std::string> out;
  std::set<int> seen;
  std::istringstream log_lines(log);
  for (std::string entry; std::getline(log_lines, entry);) {
    if (entry.find("error") == std::string::npos) continue;
    std::smatch m;
    if (!std::regex_search(entry, m, citation)) continue;
    int n = std::stoi(m[1]);
    if (n < 1 || n > int(lines.size()) || !seen.insert(n).second) continue;
    out.push_back(fmt::format("line {}: {}", n, lines[size_t(n - 1)]));
  }
  return out;
}

const ExecutionBackendPtr& opencl_execution_backend() {
  static const ExecutionBackendPtr backend = std::make_shared<OpenCLBackend>();
  return backend;
}

}  // namespace tilec::opencl
