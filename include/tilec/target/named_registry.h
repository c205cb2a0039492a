// NamedRegistry<Entry>: the ordered, thread-safe list of uniquely named entries behind
// the target detector and normalizer registries. Entries are published as immutable
// shared_ptrs, so callers run a snapshot unlocked while others register. Entry needs a
// `name` and `bool same_as(const Entry&)` (a recognisably identical re-registration).
#pragma once

#include "tilec/target/target_error.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::target::detail {

template <class Entry>
class NamedRegistry {
 public:
  // Appends `entry`; a taken name is kept as is when same_as, replaced in place with
  // `override`, and otherwise rejected naming `noun` ("target detector") and every
  // taken name under `plural` ("detectors").
  void insert(Entry entry, bool override, const char* noun, const char* plural) {
    auto published = std::make_shared<const Entry>(std::move(entry));
    std::lock_guard lock(mutex_);
    auto found = std::find_if(entries_.begin(), entries_.end(), [&](const auto& existing) {
      return existing->name == published->name;
    });
    if (found == entries_.end()) {
      entries_.push_back(std::move(published));
      return;
    }
    if ((*found)->same_as(*published)) return;
    if (!override) {
      std::string taken;
      for (const auto& existing : entries_) taken += (taken.empty() ? "" : ", ") + existing->name;
      throw TargetError(std::string(noun) + " '" + published->name + "' is already registered (" +
                        plural + ": " + taken +
                        "); pass override=true to replace it, or choose another name");
    }
    *found = std::move(published);
  }

  bool remove(std::string_view name) {
    std::lock_guard lock(mutex_);
    auto found = std::find_if(entries_.begin(), entries_.end(),
                              [&](const auto& existing) { return existing->name == name; });
    if (found == entries_.end()) return false;
    entries_.erase(found);
    return true;
  }

  std::vector<std::shared_ptr<const Entry>> snapshot() const {
    std::lock_guard lock(mutex_);
    return entries_;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> names;
    for (const auto& entry : snapshot()) names.push_back(entry->name);
    return names;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<const Entry>> entries_;
};

}  // namespace tilec::target::detail
