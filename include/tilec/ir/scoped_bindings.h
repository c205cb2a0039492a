// ScopedBindings<Key, Value>: IR nodes (variables, buffers) bound to values, where
// the bindings made while a Mark is alive are undone when it dies and the ones they
// shadowed come back. The interpreter's compiler (slots) and the structural
// canonicalizer (definition numbers) keep their let/loop/allocation scopes with it.
#pragma once

#include <cstddef>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tilec::ir {

template <class Key, class Value>
class ScopedBindings {
 public:
  // Binds `key` until the innermost live Mark dies.
  void bind(const Key* key, Value value) {
    auto it = map_.find(key);
    undo_.emplace_back(key, it == map_.end() ? std::nullopt : std::optional<Value>(it->second));
    map_[key] = std::move(value);
  }
  // Binds `key` for the rest of the traversal: no Mark undoes it.
  void bind_for_good(const Key* key, Value value) { map_[key] = std::move(value); }
  // nullptr when `key` is not bound.
  const Value* find(const Key* key) const {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second;
  }

  class Mark {
   public:
    explicit Mark(ScopedBindings& bindings) : bindings_(bindings), size_(bindings.undo_.size()) {}
    ~Mark() { bindings_.unwind(size_); }
    Mark(const Mark&) = delete;
    Mark& operator=(const Mark&) = delete;

   private:
    ScopedBindings& bindings_;
    size_t size_;
  };

 private:
  void unwind(size_t size) {
    while (undo_.size() > size) {
      auto [key, previous] = std::move(undo_.back());
      undo_.pop_back();
      if (previous) {
        map_[key] = std::move(*previous);
      } else {
        map_.erase(key);
      }
    }
  }

  std::unordered_map<const Key*, Value> map_;
  std::vector<std::pair<const Key*, std::optional<Value>>> undo_;
};

}  // namespace tilec::ir
