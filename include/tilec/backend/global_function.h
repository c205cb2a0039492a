// The global function registry: named, type-erased callables over Value, the
// C++ counterpart of TVM's global functions that manifests' callbacks and
// global_func_host_codegen / global_func_device_codegen refer to by name.
// Registration rejects a taken name holding another function unless override is asked
// for; the very same function again (target/callable_identity.h) is a no-op.
// Thread-safe.
#pragma once

#include "tilec/backend/artifact.h"
#include "tilec/ir/function.h"
#include "tilec/target/callable_identity.h"
#include "tilec/target/target.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace tilec::backend {

class Value;
using ValueList = std::vector<Value>;
using Bytes = std::vector<uint8_t>;

// A small dynamically typed value: none, IRModule, Target, string, int64,
// double, bool, bytes, CodeArtifact or a list of Values.
class Value {
 public:
  using Storage = std::variant<std::monostate, ir::IRModule, target::Target, std::string, int64_t,
                               double, bool, Bytes, CodeArtifact, ValueList>;

  Value() = default;
  Value(ir::IRModule v) : storage_(std::move(v)) {}
  Value(target::Target v) : storage_(std::move(v)) {}
  Value(std::string v) : storage_(std::move(v)) {}
  Value(const char* v) : storage_(std::string(v)) {}
  Value(int64_t v) : storage_(v) {}
  Value(int v) : storage_(int64_t{v}) {}
  Value(double v) : storage_(v) {}
  Value(bool v) : storage_(v) {}
  Value(Bytes v) : storage_(std::move(v)) {}
  Value(CodeArtifact v) : storage_(std::move(v)) {}
  Value(ValueList v) : storage_(std::move(v)) {}

  bool is_none() const { return std::holds_alternative<std::monostate>(storage_); }
  template <class T>
  bool is() const {
    return std::holds_alternative<T>(storage_);
  }
  // The held value; throws BackendError naming the expected and the actual type.
  template <class T>
  const T& as() const;

  const char* type_name() const;  // "none", "IRModule", "Target", "string", "int", ...
  const Storage& storage() const { return storage_; }

 private:
  Storage storage_;
};

// The name of the Storage alternative at `index` ("none", "IRModule", ...).
const char* value_type_name_at(size_t index);
[[noreturn]] void throw_value_type_error(size_t expected_index, size_t actual_index);

namespace detail {
template <class T, class... Alternatives>
constexpr size_t alternative_index(const std::variant<Alternatives...>*) {
  size_t index = 0;
  ((std::is_same_v<T, Alternatives> ? true : (++index, false)) || ...);
  return index;
}
}  // namespace detail

template <class T>
const T& Value::as() const {
  if (const T* held = std::get_if<T>(&storage_)) return *held;
  throw_value_type_error(detail::alternative_index<T>(static_cast<const Storage*>(nullptr)),
                         storage_.index());
}

// Shared by copies and compared by identity (target/callable_identity.h).
using GlobalFunc = target::SharedFunction<Value(const ValueList& args)>;

// Throws BackendError for an empty name, an empty function, or a name taken by a
// different function without override. The same function again is a no-op.
void register_global_func(const std::string& name, GlobalFunc fn, bool override = false);
// Throws BackendError listing the registered names (and the nearest) when absent.
GlobalFunc get_global_func(std::string_view name);
std::optional<GlobalFunc> find_global_func(std::string_view name);
std::vector<std::string> list_global_funcs();  // sorted
// Removes a function; returns whether it existed (for unloading and tests).
bool remove_global_func(std::string_view name);

}  // namespace tilec::backend
