#include "tilec/engine/tuning_cache.h"

#include "tilec/engine/compile.h"
#include "tilec/engine/engine_error.h"
#include "tilec/engine/kernel_cache.h"

#include <fmt/format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> entry_path(const TuningKey& key) {
  auto dir = cache_dir_from_environment();
  if (!dir) return std::nullopt;
  return *dir / "tuned" / (key.key() + ".json");
}

}  // namespace

std::string TuningKey::key() const {
  nlohmann::json fields = {{"source_sha256", sha256_hex(source)},
                           {"entry", entry},
                           {"defines", defines},
                           {"target", target},
                           {"execution_backend", execution_backend},
                           {"shapes", shapes},
                           {"pass_config", pass_config},
                           {"tilec_version", version()}};
  return sha256_hex(fields.dump()).substr(0, 32);
}

std::optional<TunedConfig> load_tuned_config(const TuningKey& key) {
  auto path = entry_path(key);
  if (!path) return std::nullopt;
  std::ifstream in(*path);
  if (!in) return std::nullopt;
  try {
    nlohmann::json entry = nlohmann::json::parse(in);
    TunedConfig tuned;
    tuned.config = entry.at("config").get<std::map<std::string, std::string>>();
    tuned.table_json = entry.value("table", nlohmann::json::array()).dump();
    return tuned;
  } catch (const std::exception&) {
    std::error_code ignored;
    fs::remove(*path, ignored);  // a garbled entry is a miss; tuning again rewrites it
    return std::nullopt;
  }
}

bool store_tuned_config(const TuningKey& key, const TunedConfig& tuned) {
  auto path = entry_path(key);
  if (!path) return false;
  std::error_code error;
  fs::create_directories(path->parent_path(), error);
  if (error)
    throw EngineError(fmt::format("cannot create '{}' for the tuned config: {}",
                                  path->parent_path().string(), error.message()));
  nlohmann::json entry = {
      {"config", tuned.config},
      {"target", key.target},
      {"execution_backend", key.execution_backend},
      {"entry", key.entry},
      {"shapes", key.shapes},
      {"pass_config", key.pass_config},
      {"tilec_version", version()},
      {"table", tuned.table_json.empty() ? nlohmann::json::array()
                                         : nlohmann::json::parse(tuned.table_json)}};
  // Written privately and renamed, so a reader never sees half an entry.
  fs::path temp = path->string() + fmt::format(".tmp{}", getpid());
  {
    std::ofstream out(temp);
    out << entry.dump(2) << "\n";
    if (!out) throw EngineError(fmt::format("cannot write the tuned config '{}'", temp.string()));
  }
  fs::rename(temp, *path, error);
  if (error)
    throw EngineError(
        fmt::format("cannot store the tuned config at '{}': {}", path->string(), error.message()));
  return true;
}

}  // namespace tilec
