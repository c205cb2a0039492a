// NamedRegistry<Entry>: the ordered, thread-safe list of uniquely named entries behind
// the target detector and normalizer registries. Entries are published as immutable
// shared_ptrs, so callers run a snapshot unlocked while others register. Entry needs a
// `name` and `bool same_as(const Entry&)` (a recognisably identical re-registration).
// Every change is journaled (registration_journal.h), so a failing plugin init undoes
// the detectors and normalizers it added, replaced or removed.
#pragma once

#include "tilec/target/registration_journal.h"
#include "tilec/target/target_error.h"

#include <algorithm>
#include <cstddef>
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
    std::shared_ptr<const Entry> previous;
    {
      std::lock_guard lock(mutex_);
      auto found = std::find_if(entries_.begin(), entries_.end(), [&](const auto& existing) {
        return existing->name == published->name;
      });
      if (found == entries_.end()) {
        entries_.push_back(published);
      } else {
        if ((*found)->same_as(*published)) return;
        if (!override) {
          std::string taken;
          for (const auto& existing : entries_) {
            taken += (taken.empty() ? "" : ", ") + existing->name;
          }
          throw TargetError(std::string(noun) + " '" + published->name +
                            "' is already registered (" + plural + ": " + taken +
                            "); pass override=true to replace it, or choose another name");
        }
        previous = *found;
        *found = published;
      }
    }
    journal_undo([this, published, previous] {
      std::lock_guard lock(mutex_);
      auto found = std::find(entries_.begin(), entries_.end(), published);
      if (found == entries_.end()) return;
      if (previous)
        *found = previous;
      else
        entries_.erase(found);
    });
  }

  bool remove(std::string_view name) {
    std::shared_ptr<const Entry> removed;
    size_t position = 0;
    {
      std::lock_guard lock(mutex_);
      auto found = std::find_if(entries_.begin(), entries_.end(),
                                [&](const auto& existing) { return existing->name == name; });
      if (found == entries_.end()) return false;
      position = static_cast<size_t>(found - entries_.begin());
      removed = *found;
      entries_.erase(found);
    }
    journal_undo([this, removed, position] {
      std::lock_guard lock(mutex_);
      entries_.insert(
          entries_.begin() + static_cast<std::ptrdiff_t>(std::min(position, entries_.size())),
          removed);
    });
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
