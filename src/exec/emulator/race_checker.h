// RaceChecker: the emulator's shared-memory race detection for the blocks one OS thread
// runs. Every byte of the block's shared memory remembers, since the last barrier (an
// epoch), the thread that last wrote it and up to two threads that read it. A thread
// reading a byte another thread wrote, or writing a byte another thread wrote or read, in
// the same epoch is a race: nothing orders the two accesses on a GPU, where the fibers'
// order here would hide it. Accesses are attributed to a thread and a site (an
// instruction address or a source line), which the caller turns into source lines.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tilec::exec::emulator {

struct AccessSite {
  const void* pc = nullptr;  // instruction (return address of the access's callback)
  int32_t line = 0;          // or a source line (engine-performed accesses)
};

struct Race {
  uint32_t offset;      // byte offset in the block's shared memory
  bool first_is_write;  // the earlier access
  bool second_is_write;
  uint32_t first_thread;
  AccessSite first;
  uint32_t second_thread;
  AccessSite second;
};

class RaceChecker {
 public:
  // A new block whose shared memory is `bytes` long; clears nothing (epochs do).
  void begin_block(uint32_t bytes);
  // A barrier: accesses before it are ordered before those after it.
  void barrier() { ++epoch_; }
  // Records one access of [offset, offset + bytes); the first race it completes, if any.
  std::optional<Race> access(uint32_t offset, uint32_t bytes, bool is_write, uint32_t thread,
                             const AccessSite& site);

 private:
  struct Cell {
    uint32_t write_epoch = 0;
    uint32_t read_epoch = 0;
    uint32_t writer = 0;
    uint32_t reader = 0;
    uint32_t other_reader = 0;  // a second reader, when read_many
    uint32_t write_site = 0;    // indices into sites_
    uint32_t read_site = 0;
    uint32_t other_read_site = 0;
    bool read_many = false;
  };
  uint32_t site_index(const AccessSite& site);

  uint32_t epoch_ = 0;
  std::vector<Cell> cells_;
  std::vector<AccessSite> sites_;
  std::unordered_map<uint64_t, uint32_t> site_indices_;
};

}  // namespace tilec::exec::emulator
