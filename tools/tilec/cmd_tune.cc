// `tilec tune FILE`: tunes a kernel's autotune configs (@autotune(configs=...) or
// AutoTuner.from_kernel(configs=...), tilec/frontend/autotune.h). Every config is first
// compiled by a worker process (`tilec compile` of this same binary, several at once),
// which fills the kernel cache; a config whose compile fails is reported with its error
// and skipped. Then each compiled config is loaded from the cache, checked against the
// reference interpreter on a small problem (unless --no-check; check_overrides) and timed
// at the tuned size with do_bench (the backend's device timer where it has one); the table
// is printed
// sorted by median time, the best marked, and the best config stored (tuning_cache.h)
// for `tilec run`/`compile`/`bench` to use.
#include "compile_options.h"
#include "progress.h"
#include "shape_values.h"
#include "tuned_config.h"

#include "tilec/engine/bench.h"
#include "tilec/engine/tuning.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace tilec::cli {
namespace {

namespace fs = std::filesystem;

struct TuneOptions : CompileOptions {
  bool no_check = false;
  std::vector<std::string> check_defines;  // -D overrides of the check build (a small problem)
  bool check_full = false;                 // check at the tuned size, not a small problem
  bool retune = false;
  int warmup = -1;  // -1: the source's warmup=, else 3
  int rep = -1;     // -1: the source's rep=, else 10
  int jobs = 0;     // 0: the cores
  bool json = false;
  uint64_t seed = 0;
};

struct Candidate {
  std::map<std::string, std::string> config;
  std::string status = "ok";  // ok, compile error, check failed, run error
  std::string error;          // first line of the error
  std::optional<BenchResult> timing;
  double max_abs_err = 0;
  std::string checked_at;  // "M=64 N=64", "the tuned size"; "" when not checked
};

std::string config_text(const std::map<std::string, std::string>& config) {
  std::string text;
  for (const auto& [name, value] : config) text += (text.empty() ? "" : " ") + name + "=" + value;
  return text;
}

// One line for the table: the error's first line, and where it quotes the source (the
// line, then a caret), that line too (an assert's condition and message).
std::string first_line(const std::string& text) {
  std::string t = text;
  const std::string prefix = "tilec: error: ";
  if (t.rfind(prefix, 0) == 0) t = t.substr(prefix.size());
  std::vector<std::string> lines;
  std::istringstream in(t);
  for (std::string line; std::getline(in, line) && lines.size() < 3;) lines.push_back(line);
  if (lines.empty()) return "";
  if (lines.size() == 3 && lines[2].find('^') != std::string::npos) {
    std::string quoted =
        lines[1].substr(std::min(lines[1].size(), lines[1].find_first_not_of(' ')));
    return lines[0] + ": " + quoted;
  }
  return lines[0];
}

// Tune's steps (one per config) on the shared progress bar.
class Progress {
 public:
  Progress(std::string what, size_t total)
      : bar_(std::move(what), "tilec: tune: "), total_(total) {}
  void step(const std::string& detail) { bar_.draw(++done_, total_, detail); }

 private:
  ProgressBar bar_;
  size_t total_, done_ = 0;
};

std::vector<std::string> worker_arguments(const TuneOptions& options,
                                          const std::map<std::string, std::string>& config) {
  std::vector<std::string> args = {"tilec",
                                   "compile",
                                   options.file,
                                   "--target",
                                   options.target,
                                   "--execution-backend",
                                   options.execution_backend,
                                   "--emit",
                                   "lowered"};
  if (!options.target_host.empty()) args.insert(args.end(), {"--target-host", options.target_host});
  if (!options.entry.empty()) args.insert(args.end(), {"--entry", options.entry});
  // The pass configuration is part of the cache key: the workers build what is timed.
  if (options.bounds_check) args.push_back("--bounds-check");
  if (options.race_check) args.push_back("--racecheck");
  for (const auto& d : options.defines) args.insert(args.end(), {"-D", d});
  for (const auto& [name, value] : config) args.insert(args.end(), {"-D", name + "=" + value});
  return args;
}

// Compiles every config in worker processes, `jobs` at a time; fills compile errors.
void compile_in_workers(const TuneOptions& options, std::vector<Candidate>& candidates) {
  size_t jobs =
      options.jobs > 0 ? size_t(options.jobs) : std::max(1u, std::thread::hardware_concurrency());
  fs::path self = fs::read_symlink("/proc/self/exe");
  fs::path logs = fs::temp_directory_path() / fmt::format("tilec-tune-{}", getpid());
  fs::create_directories(logs);
  Progress progress("compiling", candidates.size());
  std::map<pid_t, size_t> running;
  size_t next = 0;
  auto reap_one = [&] {
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    auto it = running.find(pid);
    if (it == running.end()) return;
    Candidate& c = candidates[it->second];
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::ifstream log(logs / fmt::format("{}.log", it->second));
      std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
      c.status = "compile error";
      c.error =
          text.empty() ? fmt::format("the worker ended with status {}", status) : first_line(text);
    }
    progress.step(config_text(c.config) + (c.status == "ok" ? "" : ": " + c.status));
    running.erase(it);
  };
  while (next < candidates.size() || !running.empty()) {
    if (next < candidates.size() && running.size() < jobs) {
      std::vector<std::string> args = worker_arguments(options, candidates[next].config);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      posix_spawn_file_actions_t actions;
      posix_spawn_file_actions_init(&actions);
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
      std::string log = (logs / fmt::format("{}.log", next)).string();
      posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0644);
      pid_t pid = 0;
      int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
      posix_spawn_file_actions_destroy(&actions);
      if (rc != 0) {
        candidates[next].status = "compile error";
        candidates[next].error = fmt::format("cannot start a worker: {}", std::strerror(rc));
      } else {
        running[pid] = next;
      }
      ++next;
      continue;
    }
    reap_one();
  }
  std::error_code ignored;
  fs::remove_all(logs, ignored);
}

// The -D overrides of a config's check build: --check-define when given, else the small
// problem of small_check_sizes (tilec/engine/tuning.h), none with --check-full.
std::vector<std::string> check_overrides(const TuneOptions& options, const ir::AutotuneSpec& spec,
                                         const Candidate& c) {
  if (!options.check_defines.empty() || options.check_full) return options.check_defines;
  std::vector<std::string> out;
  for (const auto& [name, value] : small_check_sizes(c.config, spec.sizes))
    out.push_back(fmt::format("{}={}", name, value));
  return out;
}

// Loads the (cached) build of one config, checks it (on a small problem: check_overrides)
// and times it at the tuned size.
void measure(const TuneOptions& options, const ir::AutotuneSpec& spec, const ShapeValues& values,
             Candidate& c, int warmup, int rep) {
  CompileOptions one = options;
  one.use_tuned_config = false;
  for (const auto& [name, value] : c.config) one.defines.push_back(name + "=" + value);
  try {
    auto args = [&](const ir::PrimFunc& func) {
      return random_args_with(func, values, values.integers, options.seed);
    };
    bool check_here = !options.no_check;
    std::vector<std::string> small_defines = check_overrides(options, spec, c);
    if (check_here && !small_defines.empty()) {
      // Checked on the smaller problem (a later -D wins), timed below at the tuned size.
      CompileOptions small = one;
      small.quiet = true;
      small.defines.insert(small.defines.end(), small_defines.begin(), small_defines.end());
      std::optional<CompiledFile> check_build;
      try {
        check_build.emplace(compile_kernel_file(small));
      } catch (const std::exception&) {
        // --check-define was the user's: its failure is the config's. The automatic small
        // problem may not suit a kernel (an assert on the sizes): checked at full size then.
        if (!options.check_defines.empty()) throw;
        small_defines.clear();
      }
      if (check_build) {
        ConfigMeasurement checked = measure_config(check_build->module, check_build->kernel, true,
                                                   BenchOptions{0, 1}, args);
        c.max_abs_err = checked.max_abs_err;
        std::string at;
        for (const auto& d : small_defines) at += (at.empty() ? "" : " ") + d;
        c.checked_at = at;
        if (checked.status != "ok") {
          c.status = checked.status;
          c.error = checked.error + " (checked at " + at + ")";
          return;
        }
        check_here = false;
      }
    }
    if (check_here) c.checked_at = "the tuned size";
    auto [mod, kernel] = compile_kernel_file(one);
    ConfigMeasurement m = measure_config(mod, kernel, check_here, BenchOptions{warmup, rep}, args);
    c.status = m.status;
    c.error = m.error;
    c.max_abs_err = std::max(c.max_abs_err, m.max_abs_err);
    c.timing = m.timing;
  } catch (const std::exception& e) {
    c.status = "run error";
    c.error = first_line(e.what());
  }
}

nlohmann::json table_json(const std::vector<Candidate>& sorted) {
  nlohmann::json table = nlohmann::json::array();
  for (const auto& c : sorted) {
    nlohmann::json row = {{"config", c.config}, {"status", c.status}};
    if (!c.error.empty()) row["error"] = c.error;
    if (!c.checked_at.empty()) row["checked_at"] = c.checked_at;
    if (c.timing) {
      row["median_ms"] = c.timing->median_ms;
      row["min_ms"] = c.timing->min_ms;
      row["max_ms"] = c.timing->max_ms;
      row["spread"] = c.timing->spread();
      row["clock"] = c.timing->clock;
    }
    table.push_back(row);
  }
  return table;
}

void print_table(const nlohmann::json& table) {
  size_t width = 6;
  for (const auto& row : table) {
    size_t w = 0;
    for (const auto& [k, v] : row["config"].items())
      w += k.size() + v.get<std::string>().size() + 2;
    width = std::max(width, w);
  }
  std::cout << fmt::format("  {:<4} {:<{}} {:>10} {:>8}  {}\n", "rank", "config", width,
                           "median ms", "spread", "status");
  int rank = 0;
  for (const auto& row : table) {
    bool timed = row.contains("median_ms");
    bool best = timed && rank == 0;
    if (timed) ++rank;
    std::string config;
    for (const auto& [k, v] : row["config"].items())
      config += (config.empty() ? "" : " ") + k + "=" + v.get<std::string>();
    std::string status = row["status"].get<std::string>();
    if (row.contains("error")) status += ": " + row["error"].get<std::string>();
    if (status == "ok" && row.contains("checked_at"))
      status += ", checked at " + row["checked_at"].get<std::string>();
    std::cout << fmt::format(
        "{} {:<4} {:<{}} {:>10} {:>8}  {}\n", best ? "*" : " ", timed ? std::to_string(rank) : "-",
        config, width, timed ? fmt::format("{:.4f}", row["median_ms"].get<double>()) : "-",
        timed ? fmt::format("±{:.1f}%", 100 * row["spread"].get<double>()) : "-", status);
  }
  std::set<std::string> clocks;
  for (const auto& row : table)
    if (row.contains("clock")) clocks.insert(row["clock"].get<std::string>());
  for (const auto& clock : clocks) std::cout << fmt::format("  timed with the {} clock\n", clock);
}

int run_tune(const TuneOptions& given) {
  TuneOptions options = given;
  std::optional<ir::AutotuneSpec> spec = autotune_spec(options);
  if (!spec || spec->configs.empty())
    throw EngineError(fmt::format(
        "{}: no autotune configs to tune; write @autotune(configs=[{{...}}, ...]) on the factory "
        "or AutoTuner.from_kernel(kernel=..., configs=...) (examples/gemm_autotune.py)",
        options.file));
  // Each config compiles the function that holds the configs, also in a file that
  // defines several (TileLang's example_gemm_autotune.py: get_best_config and matmul);
  // the tuning key names the tuned function, so this does not change what is cached.
  if (options.entry.empty()) options.entry = spec->entry;
  ShapeValues values = parse_shape_values(options.shapes);
  TuningKey key = tuning_key(options);
  if (!options.retune) {
    if (auto cached = load_tuned_config(key)) {
      std::cerr << fmt::format(
          "tilec: tune: '{}' was tuned before for {}; cached best config: {} "
          "(--retune searches again)\n",
          spec->function, key.target, config_text(cached->config));
      if (options.json)
        std::cout << nlohmann::json::parse(cached->table_json).dump(2) << "\n";
      else
        print_table(nlohmann::json::parse(cached->table_json));
      return kExitOk;
    }
  }
  int warmup = options.warmup >= 0 ? options.warmup : spec->warmup > 0 ? spec->warmup : 3;
  int rep = options.rep >= 1 ? options.rep : spec->rep > 0 ? spec->rep : 10;
  std::cerr << fmt::format("tilec: tune: '{}': {} configs on {} ({}), warm-up {}, {} reps{}\n",
                           spec->function, spec->configs.size(), key.target, key.execution_backend,
                           warmup, rep,
                           options.no_check ? ", not checked"
                           : options.check_full || !options.check_defines.empty()
                               ? ", each checked against the interpreter"
                               : ", each checked against the interpreter on a small problem");
  std::vector<Candidate> candidates;
  for (const auto& config : spec->configs) {
    Candidate c;
    c.config = config;
    candidates.push_back(std::move(c));
  }
  compile_in_workers(options, candidates);
  Progress progress("timing", candidates.size());
  for (auto& c : candidates) {
    if (c.status == "ok") measure(options, *spec, values, c, warmup, rep);
    progress.step(config_text(c.config) +
                  (c.timing ? fmt::format(": {:.4f} ms", c.timing->median_ms) : ": " + c.status));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     if (bool(a.timing) != bool(b.timing)) return bool(a.timing);
                     return a.timing && a.timing->median_ms < b.timing->median_ms;
                   });
  nlohmann::json table = table_json(candidates);
  if (options.json)
    std::cout << table.dump(2) << "\n";
  else
    print_table(table);
  if (!candidates.front().timing) {
    std::cerr << "tilec: tune: no config compiled and passed its check; nothing stored\n";
    return kExitFailure;
  }
  bool stored = store_tuned_config(key, {candidates.front().config, table.dump()});
  std::cerr << fmt::format(
      "tilec: tune: best {} ({}); {}\n", config_text(candidates.front().config),
      format_timing(*candidates.front().timing),
      stored ? "stored: `tilec run`/`compile`/`bench` use it" : "not stored (TILEC_DISABLE_CACHE)");
  return kExitOk;
}

}  // namespace

TILEC_REGISTER_COMMAND(Command{
    "tune",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<TuneOptions>();
      add_compile_options(sub, *options);
      sub.add_option("--shape", options->shapes,
                     "value of a symbolic dimension or scalar parameter: NAME=VALUE (repeatable; "
                     "part of the tuning key)");
      sub.add_flag("--no-check", options->no_check,
                   "do not check each config against the reference interpreter");
      sub.add_option("--check-define", options->check_defines,
                     "check each config on this problem instead of the automatic small one: "
                     "NAME=VALUE overrides -D for the check build only (e.g. -D M=4096 to "
                     "time, --check-define M=256 to check); repeatable");
      sub.add_flag("--check-full", options->check_full,
                   "check each config at the tuned size. By default it is checked on a small "
                   "problem: each integer parameter of the factory and its enclosing functions "
                   "that no config sets (M, N, K, seq_len, ...) and that is a multiple of L, "
                   "the least common multiple of the config's block*/tile* values, and larger "
                   "than 2*L, becomes 2*L (two tiles); a config whose small build fails is "
                   "checked at the tuned size");
      sub.add_flag("--retune", options->retune, "search again even when a best config is cached");
      sub.add_option("--warmup", options->warmup,
                     "untimed calls per config (default: the source's warmup=, else 3)");
      sub.add_option("--rep", options->rep,
                     "timed calls per config (default: the source's rep=, else 10)");
      sub.add_option("-j,--jobs", options->jobs,
                     "worker processes compiling at once (default: "
                     "the cores)");
      sub.add_flag("--json", options->json, "print the table as JSON");
      sub.add_option("--seed", options->seed, "seed of the random inputs")->capture_default_str();
      return [options] { return run_tune(*options); };
    },
    "tune a kernel's autotune configs: compile in parallel, check, time, cache the best"});

}  // namespace tilec::cli
