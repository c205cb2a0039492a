// The best config `tilec tune` (or tilec.autotune) found, kept in the kernel cache
// directory as <cache>/tuned/<key>.json. The key covers everything the choice depends
// on: the kernel file's text, the entry, the -D values that are not tuned, the
// resolved target and execution backend, the --shape values, the pass config that changes
// the build (--bounds-check, --racecheck: a checked build times differently) and the
// tilec version.
// With TILEC_DISABLE_CACHE nothing is stored or found.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace tilec {

struct TuningKey {
  std::string source;  // the kernel file's text
  std::string entry;
  std::map<std::string, std::string> defines;  // the -D values given (none of them tuned)
  std::string target;                          // canonical, resolved
  std::string execution_backend;               // resolved name
  std::map<std::string, std::string> shapes;   // --shape NAME=VALUE as written
  // The compile's pass config (tilec.bounds_check=true, ...), each value as text.
  std::map<std::string, std::string> pass_config;
  std::string key() const;  // 32 hex digits, includes tilec::version()
};

struct TunedConfig {
  std::map<std::string, std::string> config;  // NAME -> VALUE, as -D takes them
  std::string table_json;                     // the tuning table, as the tuner reported it
};

std::optional<TunedConfig> load_tuned_config(const TuningKey& key);
// Returns false (saying nothing) when the cache is disabled; throws EngineError when the
// entry cannot be written.
bool store_tuned_config(const TuningKey& key, const TunedConfig& tuned);

}  // namespace tilec
