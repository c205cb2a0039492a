// PassContext: the typed configuration (and instrument list) every pass of one
// lowering sees. Config keys must be declared first with register_pass_config_key;
// an unknown key or a value of the wrong type is rejected when the context is
// built. PassContext::current() is the innermost ScopedPassContext on this thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tilec::transform {

class PassInstrument;

// Raised for bad pass configuration and for a pass that failed inside a pipeline.
struct PassError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class PassConfigType { kBool, kInt, kFloat, kString };
const char* to_string(PassConfigType type);  // "bool", "int", "float", "string"

using PassConfigValue = std::variant<bool, int64_t, double, std::string>;
using PassConfig = std::map<std::string, PassConfigValue>;

struct PassConfigKey {
  std::string name;
  PassConfigType type;
  PassConfigValue default_value;
  std::string doc;
};

// Declares a key. Re-declaring an identical key is a no-op; a different
// declaration under a taken name, an empty name or a default of the wrong type
// throws PassError. Thread-safe.
void register_pass_config_key(std::string name, PassConfigType type, PassConfigValue default_value,
                              std::string doc);
std::vector<PassConfigKey> list_pass_config_keys();  // sorted by name; a copy

class PassContext {
 public:
  // Validates every entry against the declared keys: an unknown key gives the
  // declared keys and the nearest match; a wrong type names both types. An int
  // is accepted for a float key (widened), nothing else is converted.
  explicit PassContext(PassConfig config = {},
                       std::vector<std::shared_ptr<PassInstrument>> instruments = {});

  // The value set for a declared key, else its declared default. Unknown keys throw.
  PassConfigValue get(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  int64_t get_int(std::string_view key) const;
  double get_float(std::string_view key) const;
  std::string get_string(std::string_view key) const;

  const PassConfig& config() const { return config_; }  // only explicitly set keys
  const std::vector<std::shared_ptr<PassInstrument>>& instruments() const { return instruments_; }

  // The innermost ScopedPassContext of the calling thread, else an empty context.
  static const PassContext& current();

 private:
  PassConfig config_;
  std::vector<std::shared_ptr<PassInstrument>> instruments_;
};

// RAII: makes a context current on this thread for the scope's lifetime (nests).
class ScopedPassContext {
 public:
  explicit ScopedPassContext(PassContext context);
  ~ScopedPassContext();
  ScopedPassContext(const ScopedPassContext&) = delete;
  ScopedPassContext& operator=(const ScopedPassContext&) = delete;

 private:
  std::shared_ptr<const PassContext> context_;
};

}  // namespace tilec::transform
