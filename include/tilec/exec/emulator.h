// The `emulator` execution backend: runs GPU device code on the CPU. The device source a
// GPU backend generated (CUDA C++ today) is compiled, unchanged, by the host C++ compiler
// ($CXX, else c++; with -g, so gdb steps through it) against the emulator's headers: the
// engine's (tilec/emu/device.h) and the dialect's, which the target backend that emits
// the source registers here (the cuda backend registers CUDA's, tilec/emu/cuda.h). A
// launch runs the grid's blocks over the runtime's thread pool and each block's threads
// as fibers on one OS thread (src/exec/emulator/block_runner.h): barriers and warp
// collectives that some thread never reaches, or whose lanes disagree, are errors naming
// the kernel, block, threads and source lines, never hangs. With the pass config
// kEmulatorRaceCheckConfigKey the source is compiled with -fsanitize=thread's
// instrumentation (no ThreadSanitizer run time: the engine takes the callbacks), and a
// shared-memory race -- two threads' conflicting accesses with no barrier between them --
// is an error naming both threads and both lines. Device memory is host memory: tensors
// are copied in and back around each launch as on a GPU. The built library
// (`device.so`), its source and headers sit in the kernel-cache entry beside the host
// library, so `gdb` can load them.
#pragma once

#include "tilec/backend/artifact.h"
#include "tilec/exec/execution_backend.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec::exec {

inline constexpr const char* kEmulatorBackendName = "emulator";
// bool, default false: check shared-memory races (CLI: --racecheck).
inline constexpr const char* kEmulatorRaceCheckConfigKey = "tilec.emulator.racecheck";

// One kernel of a device source, as the emulator launches it.
struct EmulatedKernel {
  std::string name;           // the device function's symbol
  int64_t launch_bounds = 0;  // its declared maximum threads per block; 0: none
};

// A device language the emulator compiles, registered by the target backend that emits it.
struct EmulatorDialect {
  std::string format;    // the device artifact format it takes ("cuda")
  std::string language;  // for messages ("CUDA C++")
  // The header force-included before the source, as an #include path in `files`.
  std::string header;
  // Files written into the build's include directory: (relative path, text).
  std::vector<std::pair<std::string, std::string>> files;
  // The kernels of a device artifact; throws ExecError for code the emulator cannot run,
  // saying why and what to use instead.
  std::vector<EmulatedKernel> (*kernels)(const backend::CodeArtifact& device) = nullptr;
  // Extra host-compiler options for a device artifact (include paths it names); may be null.
  std::vector<std::string> (*compile_options)(const backend::CodeArtifact& device) = nullptr;
};

// Registers `dialect` for its format. Registering the same format again with the same
// header is a no-op; another header under a taken format throws ExecError unless
// override. Thread-safe.
void register_emulator_dialect(EmulatorDialect dialect, bool override = false);
// The formats the emulator compiles, sorted.
std::vector<std::string> list_emulator_dialects();

const ExecutionBackendPtr& emulator_execution_backend();

// Declares kEmulatorRaceCheckConfigKey; idempotent.
void register_emulator_config_keys();

}  // namespace tilec::exec
