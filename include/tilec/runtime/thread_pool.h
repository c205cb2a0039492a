// ThreadPool: the workers that run a kernel's blocks. parallel_for splits [0, n) into at
// most num_threads() contiguous chunks (the caller runs the first) and returns the first
// non-zero status; a throwing task counts as -1. Calls from inside a task run inline, so
// kernels calling kernels cannot deadlock.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tilec::runtime {

using TaskRangeFn = std::function<int32_t(int64_t begin, int64_t end)>;

class ThreadPool {
 public:
  // num_threads counts the calling thread: a pool of 1 starts no workers.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }
  int32_t parallel_for(int64_t num_tasks, const TaskRangeFn& fn);

 private:
  void worker_loop();
  bool run_one_queued_job();

  int num_threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
};

// The machine's core count, or TILEC_NUM_THREADS when set (a positive integer;
// anything else throws RuntimeError saying so).
int default_num_threads();

// The process-wide pool, sized by default_num_threads() on first use.
ThreadPool& global_thread_pool();

}  // namespace tilec::runtime
