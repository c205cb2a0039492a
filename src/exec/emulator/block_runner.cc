#include "block_runner.h"

#include "tilec/exec/execution_backend.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace tilec::exec::emulator {

namespace {

// The runner and fiber this OS thread runs now (fibers never move between OS threads).
thread_local BlockRunner* t_runner = nullptr;
thread_local void* t_fiber = nullptr;

// Each fiber's stack: TILEC_EMU_STACK_KB (default 128 KiB; registers and fragments of a
// GPU thread are at most a few KiB, the rest is for -O0 builds and deep helpers).
size_t stack_bytes_from_environment() {
  size_t kb = 128;
  if (const char* text = std::getenv("TILEC_EMU_STACK_KB")) {
    char* end = nullptr;
    long value = std::strtol(text, &end, 10);
    if (end && *end == '\0' && value >= 16 && value <= 65536) kb = size_t(value);
  }
  return kb * 1024;
}

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

std::string lanes_text(uint64_t mask) {
  std::string out;
  for (int l = 0; l < 64;) {
    if (!((mask >> l) & 1)) {
      ++l;
      continue;
    }
    int end = l;
    while (end + 1 < 64 && ((mask >> (end + 1)) & 1)) ++end;
    out +=
        (out.empty() ? "" : ", ") + (end == l ? std::to_string(l) : fmt::format("{}-{}", l, end));
    l = end + 1;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

BlockRunner::BlockRunner(const DeviceLibrary& library, const TilecEmuKernelInfo& kernel,
                         const TilecEmuArg* args, const LaunchShape& shape)
    : library_(library), kernel_(kernel), args_(args), shape_(shape) {
  threads_ = shape.block[0] * shape.block[1] * shape.block[2];
  warp_size_ = kernel.warp_size > 0 ? uint32_t(kernel.warp_size) : 32;
  stack_bytes_ = stack_bytes_from_environment();
  // One mapping for every fiber's stack, each above a guard page: an overflow faults
  // instead of corrupting its neighbour. Pages are committed only when touched.
  size_t slot = stack_bytes_ + page_size();
  stacks_size_ = slot * threads_;
  void* mem = mmap(nullptr, stacks_size_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) {
    throw ExecError(
        fmt::format("emulator: cannot map {} bytes of fiber stacks for {} threads; "
                    "lower TILEC_EMU_STACK_KB",
                    stacks_size_, threads_));
  }
  stacks_ = static_cast<uint8_t*>(mem);
  for (uint32_t i = 0; i < threads_; ++i) mprotect(stacks_ + i * slot, page_size(), PROT_NONE);
  fibers_.resize(threads_);
  warps_.resize((threads_ + warp_size_ - 1) / warp_size_);
  for (size_t w = 0; w < warps_.size(); ++w) warps_[w].lanes.resize(warp_size_);
}

BlockRunner::~BlockRunner() {
  if (stacks_) munmap(stacks_, stacks_size_);
}

std::string BlockRunner::thread_name(const Fiber& f) const {
  const TilecEmuThread& t = f.thread;
  return fmt::format("thread ({}, {}, {})", t.thread_idx.x, t.thread_idx.y, t.thread_idx.z);
}

std::string BlockRunner::where(const void* pc, int32_t line) const {
  return library_.describe_line(line > 0 ? line : library_.line_of(pc));
}

std::optional<std::string> BlockRunner::run(int64_t block) {
  const uint32_t gx = shape_.grid[0], gy = shape_.grid[1];
  TilecEmuDim3 block_idx{uint32_t(block % gx), uint32_t((block / gx) % gy),
                         uint32_t(block / (int64_t(gx) * gy))};
  library_.shared(&shared_, shape_.race_check);
  // Shared memory starts with garbage on a GPU; here with all bits set (NaN as float), so
  // a read of an element nothing wrote shows in the results. Spared: the library's own
  // state, and the dynamic array past what this launch uses.
  std::pair<uint8_t*, uint8_t*> keep[2] = {
      {shared_.skip_begin, shared_.skip_end},
      {shared_.dynamic + shape_.dynamic_shared_bytes, shared_.dynamic + shared_.dynamic_capacity}};
  if (keep[1].first < keep[0].first) std::swap(keep[0], keep[1]);
  uint8_t* at = shared_.begin;
  for (const auto& [begin, end] : keep) {
    if (at < begin) std::memset(at, 0xFF, size_t(std::min(begin, shared_.end) - at));
    at = std::max(at, end);
  }
  if (at < shared_.end) std::memset(at, 0xFF, size_t(shared_.end - at));
  if (shape_.race_check) races_.begin_block(uint32_t(shared_.end - shared_.begin));

  error_.reset();
  error_is_whole_ = false;
  live_ = threads_;
  at_barrier_ = 0;
  first_at_barrier_ = nullptr;
  first_done_ = nullptr;
  for (auto& w : warps_) w.arrived = 0;
  size_t slot = stack_bytes_ + page_size();
  for (uint32_t i = 0; i < threads_; ++i) {
    Fiber& f = fibers_[i];
    f.state = State::kReady;
    f.what = nullptr;
    f.line = 0;
    f.copies.clear();
    f.group_ends.clear();
    TilecEmuThread& t = f.thread;
    t.thread_idx = {i % shape_.block[0], (i / shape_.block[0]) % shape_.block[1],
                    i / (shape_.block[0] * shape_.block[1])};
    t.block_idx = block_idx;
    t.block_dim = {shape_.block[0], shape_.block[1], shape_.block[2]};
    t.grid_dim = {shape_.grid[0], shape_.grid[1], shape_.grid[2]};
    t.flat = i;
    t.lane = i % warp_size_;
    t.warp = i / warp_size_;
    t.warp_size = warp_size_;
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = stacks_ + i * slot + page_size();
    f.context.uc_stack.ss_size = stack_bytes_;
    f.context.uc_link = nullptr;
    makecontext(&f.context, &BlockRunner::fiber_main, 0);
  }

  BlockRunner* outer_runner = t_runner;
  void* outer_fiber = t_fiber;
  t_runner = this;
  for (;;) {
    bool ran = false;
    for (Fiber& f : fibers_) {
      if (f.state != State::kReady) continue;
      t_fiber = &f;
      library_.set_self(&f.thread);
      swapcontext(&scheduler_, &f.context);
      ran = true;
      if (error_) break;
    }
    if (error_ || live_ == 0) break;
    if (!ran) {
      error_ = deadlock();
      break;
    }
  }
  t_runner = outer_runner;
  t_fiber = outer_fiber;
  if (!error_) return std::nullopt;
  if (error_is_whole_) return error_;
  return fmt::format("emulator: kernel '{}', block ({}, {}, {}) of {}x{}x{}: {}", kernel_.name,
                     block_idx.x, block_idx.y, block_idx.z, shape_.grid[0], shape_.grid[1],
                     shape_.grid[2], *error_);
}

void BlockRunner::fiber_main() {
  BlockRunner& r = *t_runner;
  r.kernel_.invoke(r.args_);
  r.finish(*static_cast<Fiber*>(t_fiber));
}

void BlockRunner::yield(Fiber& f) {
  swapcontext(&f.context, &scheduler_);
}

void BlockRunner::fail(Fiber& f, std::string message) {
  error_ = std::move(message);
  f.state = State::kDone;
  swapcontext(&f.context, &scheduler_);
  std::abort();  // a failed fiber is never resumed
}

void BlockRunner::finish(Fiber& f) {
  complete_copies(f, f.copies.size());
  f.state = State::kDone;
  --live_;
  if (!first_done_) first_done_ = &f;
  if (at_barrier_ > 0) {
    fail(f, fmt::format("{} finished without reaching the barrier at {}, where {} other threads "
                        "wait (first: {}); a barrier must be reached by every thread of the "
                        "block, so it may not sit in code that some threads skip",
                        thread_name(f), library_.describe_line(first_at_barrier_->line),
                        at_barrier_, thread_name(*first_at_barrier_)));
  }
  const Warp& w = warps_[f.thread.warp];
  if (w.arrived != 0 && ((w.mask >> f.thread.lane) & 1)) {
    fail(f, fmt::format("{} (lane {} of warp {}) finished, but lanes {} wait for it at {} at {}",
                        thread_name(f), f.thread.lane, f.thread.warp, lanes_text(w.arrived), w.what,
                        library_.describe_line(w.line)));
  }
  swapcontext(&f.context, &scheduler_);
  std::abort();  // a finished fiber is never resumed
}

void BlockRunner::barrier(Fiber& f, const char* what, int32_t line) {
  if (first_done_) {
    fail(f, fmt::format("{} waits at {} at {}, which {} never reaches: it finished first; a "
                        "barrier must be reached by every thread of the block",
                        thread_name(f), what, library_.describe_line(line),
                        thread_name(*first_done_)));
  }
  if (at_barrier_ == 0) {
    first_at_barrier_ = &f;
  } else if (first_at_barrier_->line != line) {
    fail(f,
         fmt::format("{} waits at the barrier at {} while {} waits at the one at {}: a "
                     "barrier inside code that threads of the block take differently "
                     "(a divergent branch)",
                     thread_name(f), library_.describe_line(line), thread_name(*first_at_barrier_),
                     library_.describe_line(first_at_barrier_->line)));
  }
  f.state = State::kBarrier;
  f.what = what;
  f.line = line;
  if (++at_barrier_ < live_) return yield(f);
  for (Fiber& other : fibers_)
    if (other.state == State::kBarrier) other.state = State::kReady;
  at_barrier_ = 0;
  first_at_barrier_ = nullptr;
  if (shape_.race_check) races_.barrier();
}

void BlockRunner::collective(Fiber& f, const char* what, int32_t line, uint64_t mask,
                             const void* in, int32_t in_bytes, void* out, int32_t out_bytes,
                             TilecEmuComplete complete) {
  const uint32_t lane = f.thread.lane;
  Warp& w = warps_[f.thread.warp];
  uint32_t first = f.thread.warp * warp_size_;
  uint32_t present = std::min(warp_size_, threads_ - first);
  uint64_t exists = present >= 64 ? ~uint64_t(0) : ((uint64_t(1) << present) - 1);
  if (!((mask >> lane) & 1)) {
    fail(f, fmt::format("{} (lane {}) calls {} at {} with mask {:#x}, which does not include "
                        "its own lane",
                        thread_name(f), lane, what, library_.describe_line(line), mask));
  }
  if (mask & ~exists) {
    fail(f, fmt::format("{} calls {} at {} with mask {:#x}, but warp {} has only lanes {} "
                        "(the block has {} threads)",
                        thread_name(f), what, library_.describe_line(line), mask, f.thread.warp,
                        lanes_text(exists), threads_));
  }
  for (uint32_t l = 0; l < present; ++l) {
    const Fiber& other = fibers_[first + l];
    if (((mask >> l) & 1) && other.state == State::kDone) {
      fail(f,
           fmt::format("{} calls {} at {} with lane {} in its mask, but that lane ({}) has "
                       "finished",
                       thread_name(f), what, library_.describe_line(line), l, thread_name(other)));
    }
  }
  if (w.arrived == 0) {
    w.what = what;
    w.line = line;
    w.mask = mask;
    w.first_lane = lane;
  } else if (std::strcmp(w.what, what) != 0 || w.line != line || w.mask != mask) {
    fail(f, fmt::format("the lanes of warp {} disagree: lane {} ({}) calls {} at {} with mask "
                        "{:#x}, while lane {} waits in {} at {} with mask {:#x}",
                        f.thread.warp, lane, thread_name(f), what, library_.describe_line(line),
                        mask, w.first_lane, w.what, library_.describe_line(w.line), w.mask));
  }
  TilecEmuLane& slot = w.lanes[lane];
  if (in_bytes > 0) std::memcpy(slot.in, in, size_t(std::min<int32_t>(in_bytes, sizeof slot.in)));
  slot.flat = f.thread.flat;
  slot.line = line;
  w.arrived |= uint64_t(1) << lane;
  if (w.arrived != mask) {
    f.state = State::kCollective;
    f.what = what;
    f.line = line;
    yield(f);
  } else {
    complete(w.lanes.data(), warp_size_, mask);
    w.arrived = 0;
    for (uint32_t l = 0; l < present; ++l) {
      Fiber& other = fibers_[first + l];
      if (((mask >> l) & 1) && other.state == State::kCollective) other.state = State::kReady;
    }
  }
  if (out_bytes > 0)
    std::memcpy(out, slot.out, size_t(std::min<int32_t>(out_bytes, sizeof slot.out)));
}

void BlockRunner::access(Fiber& f, const void* addr, int32_t bytes, bool is_write, const void* pc,
                         int32_t line, int32_t flat) {
  if (!shape_.race_check) return;
  auto* at = static_cast<const uint8_t*>(addr);
  if (at < shared_.begin || at >= shared_.end) return;
  if (at >= shared_.skip_begin && at < shared_.skip_end) return;
  uint32_t thread = flat >= 0 ? uint32_t(flat) : f.thread.flat;
  auto race = races_.access(uint32_t(at - shared_.begin), uint32_t(bytes), is_write, thread,
                            AccessSite{pc, line});
  if (!race) return;
  auto verb = [](bool write) { return write ? "writes" : "reads"; };
  const Fiber& first = fibers_[race->first_thread];
  const Fiber& second = fibers_[race->second_thread];
  const uint8_t* byte = shared_.begin + race->offset;
  bool dynamic = byte >= shared_.dynamic && byte < shared_.dynamic + shared_.dynamic_capacity;
  std::string array = dynamic ? "" : library_.shared_array_at(race->offset);
  std::string place = dynamic
                          ? fmt::format("dynamic shared byte {}", int64_t(byte - shared_.dynamic))
                      : array.empty() ? fmt::format("shared byte {}", race->offset)
                                      : fmt::format("shared array {}", array);
  fail(f, fmt::format("shared-memory race on {}: {} {} it at {} and {} {} it at {} with "
                      "no barrier between them; a __syncthreads() must order the two accesses "
                      "(the barrier planner should have placed one)",
                      place, thread_name(first), verb(race->first_is_write),
                      where(race->first.pc, race->first.line), thread_name(second),
                      verb(race->second_is_write), where(race->second.pc, race->second.line)));
}

void BlockRunner::complete_copies(Fiber& f, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const AsyncCopy& c = f.copies[i];
    access(f, c.dst, c.bytes, true, nullptr, c.line, -1);
    auto* dst = static_cast<uint8_t*>(c.dst);
    int32_t from = std::clamp(c.src_bytes, 0, c.bytes);
    if (from > 0) std::memcpy(dst, c.src, size_t(from));
    std::memset(dst + from, 0, size_t(c.bytes - from));
  }
  f.copies.erase(f.copies.begin(), f.copies.begin() + std::ptrdiff_t(count));
  for (size_t& end : f.group_ends) end -= count;
}

std::string BlockRunner::deadlock() const {
  // Nothing can run, yet threads wait: at the barrier for threads stuck in a collective,
  // or in a collective for lanes stuck at the barrier.
  std::string detail;
  for (size_t w = 0; w < warps_.size(); ++w) {
    const Warp& warp = warps_[w];
    if (warp.arrived == 0) continue;
    detail += fmt::format("; lanes {} of warp {} wait in {} at {} for lanes {}",
                          lanes_text(warp.arrived), w, warp.what, library_.describe_line(warp.line),
                          lanes_text(warp.mask & ~warp.arrived));
  }
  if (at_barrier_ > 0) {
    detail += fmt::format("; {} threads wait at the barrier at {} (first: {})", at_barrier_,
                          library_.describe_line(first_at_barrier_->line),
                          thread_name(*first_at_barrier_));
  }
  return fmt::format("the block's threads wait for each other forever{}; a GPU would hang here",
                     detail);
}

const TilecEmuApi& BlockRunner::api() {
  static const TilecEmuApi api{
      TILEC_EMU_ABI_VERSION,
      [](const char* what, int32_t line) {
        t_runner->barrier(*static_cast<Fiber*>(t_fiber), what, line);
      },
      [](const char* what, int32_t line, uint64_t mask, const void* in, int32_t in_bytes, void* out,
         int32_t out_bytes, TilecEmuComplete complete) {
        t_runner->collective(*static_cast<Fiber*>(t_fiber), what, line, mask, in, in_bytes, out,
                             out_bytes, complete);
      },
      [](const void* addr, int32_t bytes, int32_t is_write, const void* pc, int32_t line,
         int32_t flat) {
        t_runner->access(*static_cast<Fiber*>(t_fiber), addr, bytes, is_write != 0, pc, line, flat);
      },
      [](void* dst, const void* src, int32_t bytes, int32_t src_bytes, int32_t line) {
        static_cast<Fiber*>(t_fiber)->copies.push_back({dst, src, bytes, src_bytes, line});
      },
      [] {
        Fiber& f = *static_cast<Fiber*>(t_fiber);
        f.group_ends.push_back(f.copies.size());
      },
      [](int32_t pending, int32_t) {
        Fiber& f = *static_cast<Fiber*>(t_fiber);
        size_t groups = f.group_ends.size();
        if (pending < 0 || groups <= size_t(pending)) return;
        size_t retired = groups - size_t(pending);
        size_t copies = f.group_ends[retired - 1];
        f.group_ends.erase(f.group_ends.begin(), f.group_ends.begin() + std::ptrdiff_t(retired));
        t_runner->complete_copies(f, copies);
      },
      [](const char* message, int32_t line) {
        BlockRunner& r = *t_runner;
        Fiber& f = *static_cast<Fiber*>(t_fiber);
        r.fail(f, fmt::format("{} at {}: {}", r.thread_name(f), r.library_.describe_line(line),
                              message));
      },
      [](const char* message) {
        BlockRunner& r = *t_runner;
        r.error_is_whole_ = true;
        r.fail(*static_cast<Fiber*>(t_fiber), message);
      },
  };
  return api;
}

}  // namespace tilec::exec::emulator
