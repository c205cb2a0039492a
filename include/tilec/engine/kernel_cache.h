// The on-disk kernel cache: <dir>/<key>/ holds the execution backend's artifact and
// meta.json (key fields, size, SHA-256, sources). Entries are built privately and renamed
// into place, so concurrent compiles all succeed; corrupt ones are reported and rebuilt.
// Dir: $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else ~/.cache/tilec.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace tilec {

// Everything that decides the built artifact; key() is a hash of all of it.
struct CacheKeyFields {
  uint64_t module_hash = 0;  // ir::structural_hash of the source module
  std::string target;        // canonical target string
  std::string target_host;
  std::string execution_backend;
  std::string backend_identity;  // ExecutionBackend::cache_identity (compiler + flags)
  std::string pass_config;       // canonical JSON of the effective pass configuration
  std::string tilec_version;
  // SHA-256 of the generated host and device sources. Lowering and codegen are cheap next
  // to the C compiler, so they always run; keying on their output means a change in a
  // pass or a code generator (within one tilec version) never reuses a stale library.
  std::string code_hash;

  std::string canonical_text() const;
  std::string key() const;  // 32 hex digits (SHA-256 of canonical_text, truncated)
};

struct CacheEntry {
  std::filesystem::path dir;
  std::filesystem::path artifact;
  std::string host_source;
  std::string device_source;
};

// The effective cache location, or nullopt when TILEC_DISABLE_CACHE is 1/true/yes/on.
std::optional<std::filesystem::path> cache_dir_from_environment();

class KernelCache {
 public:
  // Creates dir when missing; throws EngineError naming it when that fails.
  explicit KernelCache(std::filesystem::path dir);
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path entry_dir(const std::string& key) const { return dir_ / key; }

  // A valid entry; nullopt when absent. A present but invalid entry (missing or
  // garbled meta.json, other key, artifact missing or of the wrong size or
  // checksum) is reported and removed, and nullopt returned.
  std::optional<CacheEntry> lookup(const CacheKeyFields& fields,
                                   const std::string& artifact_name) const;
  // Reports `reason` on stderr (one line) and removes the entry.
  void discard(const std::string& key, std::string_view reason) const;

  // A fresh private directory to build into, inside the cache (same filesystem,
  // so publish() is a rename). A failed build keeps its directory so that its error
  // can point at the sources; each new build first removes those older than a day.
  std::filesystem::path make_build_dir(const std::string& key) const;
  // Writes meta.json into build_dir and renames it to the entry. Returns the
  // entry; when another process published first, build_dir is removed and the
  // existing entry is returned. nullopt (build_dir left in place) only when the
  // key is taken by an entry that is not valid either.
  std::optional<CacheEntry> publish(const std::filesystem::path& build_dir,
                                    const CacheKeyFields& fields, const std::string& artifact_name,
                                    const std::string& host_source,
                                    const std::string& device_source) const;

 private:
  std::filesystem::path dir_;
};

// SHA-256 of bytes as 64 lowercase hex digits (OpenSSL), also used for artifact checksums.
std::string sha256_hex(std::string_view bytes);

}  // namespace tilec
