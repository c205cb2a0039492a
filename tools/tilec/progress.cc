#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

namespace tilec::cli {

ProgressBar::ProgressBar(std::string label, std::string plain_prefix)
    : label_(std::move(label)), prefix_(std::move(plain_prefix)), tty_(isatty(2) != 0) {}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::draw(size_t done, size_t total, const std::string& detail) {
  int percent = total ? int(done * 100 / total) : 0;
  if (!tty_) {
    std::cerr << fmt::format("{}{} {}/{} ({}%){}{}\n", prefix_, label_, done, total, percent,
                             detail.empty() ? "" : ": ", detail);
    return;
  }
  const size_t width = 30;
  size_t filled = total ? std::min(done, total) * width / total : 0;
  std::cerr << fmt::format("\r{:<10} [{}{}] {}/{} {:>3}% {:<50.50}", label_,
                           std::string(filled, '#'), std::string(width - filled, '.'), done, total,
                           percent, detail);
  open_ = done < total;
  if (!open_) std::cerr << "\n";
  std::cerr.flush();
}

void ProgressBar::finish() {
  if (tty_ && open_) std::cerr << "\n";
  open_ = false;
}

void interpret_with_progress(const ir::PrimFunc& func, const std::vector<ir::ArgValue>& args,
                             const std::string& what) {
  ir::InterpretProgress counts;
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  auto start = std::chrono::steady_clock::now();
  std::thread watcher([&] {
    ProgressBar bar(fmt::format("{} '{}'", what, func->name), "tilec: ");
    // Quiet for a short run; then a terminal redraws often, a log gets a line every 3 s.
    auto first = start + std::chrono::seconds(bar.terminal() ? 1 : 2);
    auto every = bar.terminal() ? std::chrono::milliseconds(250) : std::chrono::seconds(3);
    std::unique_lock lock(mutex);
    for (auto next = first; !done_cv.wait_until(lock, next, [&] { return done; }); next += every) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      int64_t total = counts.blocks_total.load();
      bar.draw(size_t(counts.blocks_done.load()), size_t(total),
               fmt::format("blocks of the reference interpreter, {:.0f} s", s));
    }
    bar.finish();
  });
  auto finish = [&] {
    {
      std::lock_guard lock(mutex);
      done = true;
    }
    done_cv.notify_all();
    watcher.join();
  };
  try {
    ir::interpret(func, args, &counts);
  } catch (...) {
    finish();
    throw;
  }
  finish();
}

}  // namespace tilec::cli
