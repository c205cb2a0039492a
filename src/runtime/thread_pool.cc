#include "tilec/runtime/thread_pool.h"

#include "tilec/runtime/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace tilec::runtime {
namespace {

// Set on pool workers and on a caller while it runs a chunk: a parallel_for
// issued from there runs inline instead of waiting on busy workers.
thread_local bool inside_parallel_region = false;

struct ParallelCall {
  std::atomic<int32_t> first_error{0};
  std::atomic<int64_t> remaining{0};
  std::mutex mutex;
  std::condition_variable done;

  void record(int32_t status) {
    int32_t expected = 0;
    if (status != 0) first_error.compare_exchange_strong(expected, status);
  }
  void finish_chunk() {
    if (remaining.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> lock(mutex);
      done.notify_all();
    }
  }
};

int32_t run_guarded(const TaskRangeFn& fn, int64_t begin, int64_t end) {
  bool was_inside = inside_parallel_region;
  inside_parallel_region = true;
  int32_t status;
  try {
    status = fn(begin, end);
  } catch (...) {
    status = -1;
  }
  inside_parallel_region = was_inside;
  return status;
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) : num_threads_(std::max(1, num_threads)) {
  workers_.reserve(num_threads_ - 1);
  for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void ThreadPool::worker_loop() {
  inside_parallel_region = true;
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

bool ThreadPool::run_one_queued_job() {
  std::function<void()> job;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (jobs_.empty()) return false;
    job = std::move(jobs_.front());
    jobs_.pop_front();
  }
  job();
  return true;
}

int32_t ThreadPool::parallel_for(int64_t num_tasks, const TaskRangeFn& fn) {
  if (num_tasks <= 0) return 0;
  int64_t chunks = std::min<int64_t>(num_threads_, num_tasks);
  if (chunks == 1 || inside_parallel_region) return run_guarded(fn, 0, num_tasks);

  auto call = std::make_shared<ParallelCall>();
  call->remaining = chunks;
  auto chunk_begin = [&](int64_t chunk) { return chunk * num_tasks / chunks; };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int64_t chunk = 1; chunk < chunks; ++chunk) {
      int64_t begin = chunk_begin(chunk), end = chunk_begin(chunk + 1);
      // `fn` outlives the jobs: this call waits for every chunk before returning.
      jobs_.push_back([call, &fn, begin, end] {
        call->record(run_guarded(fn, begin, end));
        call->finish_chunk();
      });
    }
  }
  wake_.notify_all();
  call->record(run_guarded(fn, 0, chunk_begin(1)));
  call->finish_chunk();
  // Help drain the queue (possibly other callers' chunks) rather than sleep.
  while (call->remaining.load() > 0 && run_one_queued_job()) {
  }
  std::unique_lock<std::mutex> lock(call->mutex);
  call->done.wait(lock, [&] { return call->remaining.load() == 0; });
  return call->first_error.load();
}

int default_num_threads() {
  const char* env = std::getenv("TILEC_NUM_THREADS");
  if (env != nullptr && *env != '\0') {
    int value = 0;
    const char* end = env + std::strlen(env);
    auto [ptr, ec] = std::from_chars(env, end, value);
    if (ec != std::errc() || ptr != end || value <= 0) {
      throw RuntimeError(
          fmt::format("TILEC_NUM_THREADS='{}' is not a positive integer; set it to a thread count "
                      "(this machine has {} cores) or unset it to use every core",
                      env, std::max(1u, std::thread::hardware_concurrency())));
    }
    return value;
  }
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

ThreadPool& global_thread_pool() {
  static ThreadPool pool(default_num_threads());
  return pool;
}

}  // namespace tilec::runtime
