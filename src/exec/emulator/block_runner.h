// BlockRunner: runs the blocks of one emulated launch that one OS thread takes, each
// block's threads as fibers (ucontext) on that thread. A fiber runs until it waits for
// others -- a block barrier or a warp collective -- and the runner resumes the waiters
// once every thread they wait for has arrived. What a GPU would hang on or leave
// undefined is an error naming the kernel, the block, the threads and the device source
// lines: a barrier some thread never reaches (it finished, waits at another barrier, or
// waits in a warp collective), lanes of a warp collective that disagree on which
// collective or mask, and (with race checking) a shared-memory race. The runner also keeps
// each thread's cp.async groups and performs their copies when a wait retires them.
#pragma once

#include "device_library.h"
#include "race_checker.h"
#include "tilec/emu/abi.h"

#include <ucontext.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec::exec::emulator {

struct LaunchShape {
  uint32_t grid[3];
  uint32_t block[3];
  int64_t dynamic_shared_bytes;
  bool race_check;
};

class BlockRunner {
 public:
  BlockRunner(const DeviceLibrary& library, const TilecEmuKernelInfo& kernel,
              const TilecEmuArg* args, const LaunchShape& shape);
  ~BlockRunner();
  BlockRunner(const BlockRunner&) = delete;
  BlockRunner& operator=(const BlockRunner&) = delete;

  // Runs the block of linear index `block` (x fastest); the error message, if it failed.
  std::optional<std::string> run(int64_t block);

  // The engine's entry points for the device library (TilecEmuApi), for the running fiber.
  static const TilecEmuApi& api();

 private:
  enum class State { kReady, kBarrier, kCollective, kDone };
  struct AsyncCopy {
    void* dst;
    const void* src;
    int32_t bytes;
    int32_t src_bytes;
    int32_t line;
  };
  struct Fiber {
    ucontext_t context;
    TilecEmuThread thread;
    State state = State::kReady;
    const char* what = nullptr;  // where it waits or finished
    int32_t line = 0;
    std::vector<AsyncCopy> copies;
    std::vector<size_t> group_ends;  // committed groups, as end indices into copies
  };
  struct Warp {
    uint64_t arrived = 0;
    uint64_t mask = 0;
    const char* what = nullptr;
    int32_t line = 0;
    uint32_t first_lane = 0;
    std::vector<TilecEmuLane> lanes;
  };

  static void fiber_main();
  void yield(Fiber& f);
  [[noreturn]] void fail(Fiber& f, std::string message);
  void finish(Fiber& f);
  void barrier(Fiber& f, const char* what, int32_t line);
  void collective(Fiber& f, const char* what, int32_t line, uint64_t mask, const void* in,
                  int32_t in_bytes, void* out, int32_t out_bytes, TilecEmuComplete complete);
  void access(Fiber& f, const void* addr, int32_t bytes, bool is_write, const void* pc,
              int32_t line, int32_t flat);
  void complete_copies(Fiber& f, size_t count);
  std::string deadlock() const;
  std::string thread_name(const Fiber& f) const;
  std::string where(const void* pc, int32_t line) const;

  const DeviceLibrary& library_;
  const TilecEmuKernelInfo& kernel_;
  const TilecEmuArg* args_;
  LaunchShape shape_;
  uint32_t threads_;
  uint32_t warp_size_ = 32;
  size_t stack_bytes_;
  uint8_t* stacks_ = nullptr;
  size_t stacks_size_ = 0;
  std::vector<Fiber> fibers_;
  std::vector<Warp> warps_;
  ucontext_t scheduler_;
  uint32_t live_ = 0;
  uint32_t at_barrier_ = 0;
  const Fiber* first_at_barrier_ = nullptr;
  const Fiber* first_done_ = nullptr;
  std::optional<std::string> error_;
  bool error_is_whole_ = false;  // error_ is the launch's message as it is (stop)
  TilecEmuSharedRange shared_{};
  RaceChecker races_;
};

}  // namespace tilec::exec::emulator
