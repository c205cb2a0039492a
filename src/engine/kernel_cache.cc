#include "tilec/engine/kernel_cache.h"

#include "tilec/engine/engine_error.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

namespace tilec {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kMetaFile = "meta.json";
constexpr int kEntryFormat = 1;

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

bool env_flag_set(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return false;
  std::string text(value);
  std::transform(text.begin(), text.end(), text.begin(), ::tolower);
  return text == "1" || text == "true" || text == "yes" || text == "on";
}

std::string non_empty_env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// Why the entry at dir is unusable, or nullopt when it is valid (then filled in).
std::optional<std::string> validate_entry(const fs::path& dir, const CacheKeyFields& fields,
                                          const std::string& artifact_name, CacheEntry& entry) {
  auto meta_text = read_file(dir / kMetaFile);
  if (!meta_text) return std::string("meta.json is missing");
  json meta = json::parse(*meta_text, nullptr, /*allow_exceptions=*/false);
  if (meta.is_discarded() || !meta.is_object()) return std::string("meta.json is not valid JSON");
  auto text_field = [&](const char* name) -> std::optional<std::string> {
    auto found = meta.find(name);
    if (found == meta.end() || !found->is_string()) return std::nullopt;
    return found->get<std::string>();
  };
  if (meta.value("format", 0) != kEntryFormat) return std::string("meta.json has another format");
  if (text_field("key") != fields.key()) return std::string("meta.json belongs to another key");
  auto checksum = text_field("artifact_sha256");
  auto host = text_field("host_source");
  auto device = text_field("device_source");
  auto size = meta.find("artifact_size");
  if (!checksum || !host || !device || size == meta.end() || !size->is_number_unsigned()) {
    return std::string("meta.json lacks required fields");
  }
  auto artifact = read_file(dir / artifact_name);
  if (!artifact) return fmt::format("{} is missing", artifact_name);
  if (artifact->size() != size->get<uint64_t>()) {
    return fmt::format("{} has {} bytes, meta.json records {}", artifact_name, artifact->size(),
                       size->get<uint64_t>());
  }
  if (sha256_hex(*artifact) != *checksum) return fmt::format("{} checksum mismatch", artifact_name);
  entry = CacheEntry{dir, dir / artifact_name, *host, *device};
  return std::nullopt;
}

void write_file_atomically(const fs::path& path, const std::string& text) {
  fs::path temp = path;
  temp += fmt::format(".tmp-{}", getpid());
  {
    std::ofstream out(temp, std::ios::binary);
    out << text;
    if (!out) throw EngineError(fmt::format("cannot write kernel cache file '{}'", temp.string()));
  }
  fs::rename(temp, path);
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw EngineError("SHA-256 computation failed in OpenSSL");
  }
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::string CacheKeyFields::canonical_text() const {
  return fmt::format(
      "tilec-kernel-cache\nversion={}\nmodule={:016x}\ntarget={}\ntarget_host={}\n"
      "execution_backend={}\nbackend_identity={}\npass_config={}\ncode={}\n",
      tilec_version, module_hash, target, target_host, execution_backend, backend_identity,
      pass_config, code_hash);
}

std::string CacheKeyFields::key() const {
  return sha256_hex(canonical_text()).substr(0, 32);
}

std::optional<fs::path> cache_dir_from_environment() {
  if (env_flag_set("TILEC_DISABLE_CACHE")) return std::nullopt;
  if (auto dir = non_empty_env("TILEC_CACHE_DIR"); !dir.empty()) return fs::path(dir);
  if (auto xdg = non_empty_env("XDG_CACHE_HOME"); !xdg.empty()) return fs::path(xdg) / "tilec";
  if (auto home = non_empty_env("HOME"); !home.empty()) return fs::path(home) / ".cache" / "tilec";
  throw EngineError(
      "cannot locate the kernel cache: none of TILEC_CACHE_DIR, XDG_CACHE_HOME and HOME is set; "
      "set TILEC_CACHE_DIR to a writable directory or TILEC_DISABLE_CACHE=1");
}

KernelCache::KernelCache(fs::path dir) : dir_(std::move(dir)) {
  std::error_code error;
  fs::create_directories(dir_, error);
  if (error || !fs::is_directory(dir_)) {
    throw EngineError(fmt::format(
        "cannot create the kernel cache directory '{}': {}; set TILEC_CACHE_DIR to a writable "
        "directory or TILEC_DISABLE_CACHE=1",
        dir_.string(), error ? error.message() : "not a directory"));
  }
}

std::optional<CacheEntry> KernelCache::lookup(const CacheKeyFields& fields,
                                              const std::string& artifact_name) const {
  std::string key = fields.key();
  fs::path dir = entry_dir(key);
  std::error_code error;
  if (!fs::exists(dir, error)) return std::nullopt;
  CacheEntry entry;
  if (auto problem = validate_entry(dir, fields, artifact_name, entry)) {
    discard(key, *problem);
    return std::nullopt;
  }
  return entry;
}

void KernelCache::discard(const std::string& key, std::string_view reason) const {
  fs::path dir = entry_dir(key);
  std::fprintf(stderr, "tilec: warning: kernel cache entry '%s' is corrupt (%.*s); rebuilding it\n",
               dir.c_str(), int(reason.size()), reason.data());
  // Renamed aside first, so the key is free at once even while a concurrent
  // process removes the same entry; whoever gets there first is enough.
  fs::path doomed = dir;
  doomed += fmt::format(".discard-{}", getpid());
  std::error_code error;
  fs::rename(dir, doomed, error);
  std::error_code ignored;
  fs::remove_all(error ? dir : doomed, ignored);
}

namespace {

// Build directories of failed builds, kept for their error messages, go after a day;
// a build still running in another process is far younger than that.
void remove_stale_build_dirs(const fs::path& cache_dir) {
  constexpr auto kKeepFailedBuilds = std::chrono::hours(24);
  std::error_code error;
  auto now = fs::file_time_type::clock::now();
  for (const auto& entry : fs::directory_iterator(cache_dir, error)) {
    if (entry.path().filename().string().rfind(".build-", 0) != 0) continue;
    std::error_code ignored;
    auto written = fs::last_write_time(entry.path(), ignored);
    if (!ignored && now - written > kKeepFailedBuilds) fs::remove_all(entry.path(), ignored);
  }
}

}  // namespace

fs::path KernelCache::make_build_dir(const std::string& key) const {
  remove_stale_build_dirs(dir_);
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  for (int attempt = 0; attempt < 16; ++attempt) {
    fs::path dir = dir_ / fmt::format(".build-{}-{}-{}-{:08x}", key.substr(0, 12), getpid(),
                                      counter.fetch_add(1), random());
    std::error_code error;
    if (fs::create_directory(dir, error)) return dir;
    if (error && error != std::errc::file_exists) {
      throw EngineError(fmt::format("cannot create a build directory in the kernel cache '{}': {}",
                                    dir_.string(), error.message()));
    }
  }
  throw EngineError(fmt::format("cannot create a unique build directory in '{}'", dir_.string()));
}

std::optional<CacheEntry> KernelCache::publish(const fs::path& build_dir,
                                               const CacheKeyFields& fields,
                                               const std::string& artifact_name,
                                               const std::string& host_source,
                                               const std::string& device_source) const {
  std::string key = fields.key();
  auto artifact = read_file(build_dir / artifact_name);
  if (!artifact) {
    throw EngineError(fmt::format("the execution backend produced no '{}' in '{}'", artifact_name,
                                  build_dir.string()));
  }
  json meta = {{"format", kEntryFormat},
               {"key", key},
               {"tilec_version", fields.tilec_version},
               {"module_hash", fmt::format("{:016x}", fields.module_hash)},
               {"target", fields.target},
               {"target_host", fields.target_host},
               {"execution_backend", fields.execution_backend},
               {"backend_identity", fields.backend_identity},
               {"pass_config", fields.pass_config},
               {"code_hash", fields.code_hash},
               {"artifact", artifact_name},
               {"artifact_size", uint64_t(artifact->size())},
               {"artifact_sha256", sha256_hex(*artifact)},
               {"host_source", host_source},
               {"device_source", device_source}};
  write_file_atomically(build_dir / kMetaFile, meta.dump(2) + "\n");

  fs::path dir = entry_dir(key);
  std::error_code error;
  fs::rename(build_dir, dir, error);
  if (!error) return CacheEntry{dir, dir / artifact_name, host_source, device_source};
  // Another process published the same key first: its entry is equivalent.
  CacheEntry existing;
  if (validate_entry(dir, fields, artifact_name, existing)) return std::nullopt;
  std::error_code ignored;
  fs::remove_all(build_dir, ignored);
  return existing;
}

}  // namespace tilec
