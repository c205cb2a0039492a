#include "tilec/runtime/thread_pool.h"

#include "tilec/runtime/error.h"
#include "tilec/runtime/runtime_env.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace tilec::runtime {
namespace {

TEST(ThreadPool, RunsEveryTaskExactlyOnce) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> hits(1000);
  int32_t status = pool.parallel_for(1000, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
    return 0;
  });
  EXPECT_EQ(status, 0);
  for (auto& hit : hits) EXPECT_EQ(hit.load(), 1);
}

TEST(ThreadPool, StaticChunksAreContiguousAndAtMostThreadCount) {
  ThreadPool pool(3);
  std::atomic<int> chunks{0};
  std::atomic<int64_t> covered{0};
  pool.parallel_for(10, [&](int64_t begin, int64_t end) {
    EXPECT_LT(begin, end);
    chunks.fetch_add(1);
    covered.fetch_add(end - begin);
    return 0;
  });
  EXPECT_EQ(chunks.load(), 3);
  EXPECT_EQ(covered.load(), 10);
}

TEST(ThreadPool, ReturnsTheErrorOfAFailingChunk) {
  ThreadPool pool(4);
  int32_t status = pool.parallel_for(8, [](int64_t begin, int64_t) { return begin == 0 ? 0 : 7; });
  EXPECT_EQ(status, 7);
}

TEST(ThreadPool, ExceptionInATaskBecomesMinusOne) {
  ThreadPool pool(2);
  int32_t status = pool.parallel_for(4, [](int64_t begin, int64_t) -> int32_t {
    if (begin > 0) throw std::runtime_error("boom");
    return 0;
  });
  EXPECT_EQ(status, -1);
}

TEST(ThreadPool, NestedCallsRunInlineWithoutDeadlock) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  int32_t status = pool.parallel_for(4, [&](int64_t begin, int64_t end) {
    return pool.parallel_for(10, [&](int64_t b, int64_t e) {
      total.fetch_add((end - begin) * (e - b));
      return 0;
    });
  });
  EXPECT_EQ(status, 0);
  EXPECT_EQ(total.load(), 40);
}

TEST(ThreadPool, EmptyRangeDoesNothing) {
  ThreadPool pool(2);
  bool called = false;
  EXPECT_EQ(pool.parallel_for(0,
                              [&](int64_t, int64_t) {
                                called = true;
                                return 1;
                              }),
            0);
  EXPECT_FALSE(called);
}

TEST(DefaultNumThreads, HonoursTheEnvironmentVariable) {
  setenv("TILEC_NUM_THREADS", "3", 1);
  EXPECT_EQ(default_num_threads(), 3);
  setenv("TILEC_NUM_THREADS", "zero", 1);
  try {
    default_num_threads();
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("TILEC_NUM_THREADS='zero'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("positive integer"), std::string::npos);
  }
  unsetenv("TILEC_NUM_THREADS");
  EXPECT_GE(default_num_threads(), 1);
}

int32_t sum_range(int64_t begin, int64_t end, void* closure) {
  auto* sum = static_cast<std::atomic<int64_t>*>(closure);
  for (int64_t i = begin; i < end; ++i) sum->fetch_add(i);
  return 0;
}

TEST(RuntimeEnv, ParallelForThroughTheCAbi) {
  const TilecRuntimeEnv* env = default_runtime_env();
  ASSERT_NE(env, nullptr);
  EXPECT_GE(env->num_threads, 1);
  std::atomic<int64_t> sum{0};
  EXPECT_EQ(env->parallel_for(100, &sum_range, &sum), 0);
  EXPECT_EQ(sum.load(), 4950);
}

}  // namespace
}  // namespace tilec::runtime
