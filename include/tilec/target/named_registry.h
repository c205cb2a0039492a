// NamedRegistry<Entry>: the ordered, thread-safe list of uniquely named entries behind
// the target detector and normalizer registries. Entries are published as immutable
// shared_ptrs, so callers run a snapshot unlocked while others register. Entry needs a
// `name` and `bool same_as(const Entry&)` (an identical re-registration: the very same
// callable objects, target/callable_identity.h); an
// Entry with an `int priority` member is kept ordered by it (higher first, then in
// registration order). Every change is journaled (registration_journal.h), so a failing
// plugin or module init undoes the detectors and normalizers it added, replaced or removed.
#pragma once

#include "tilec/target/registration_journal.h"
#include "tilec/target/target_error.h"

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::target::detail {

template <class Entry>
int entry_priority(const Entry& entry) {
  if constexpr (requires {
                  { entry.priority } -> std::convertible_to<int>;
                }) {
    return entry.priority;
  } else {
    return 0;
  }
}

template <class Entry>
class NamedRegistry {
 public:
  // Adds `entry` after every entry of its priority or higher and returns true. A taken
  // name is replaced with `override` (always; false; in place unless the priority
  // changes), else kept as is when same_as (false), and otherwise rejected naming `noun`
  // ("target detector") and every taken name under `plural` ("detectors").
  bool insert(Entry entry, bool override, const char* noun, const char* plural) {
    auto published = std::make_shared<const Entry>(std::move(entry));
    std::shared_ptr<const Entry> previous;
    size_t previous_position = 0;
    {
      std::lock_guard lock(mutex_);
      auto found = std::find_if(entries_.begin(), entries_.end(), [&](const auto& existing) {
        return existing->name == published->name;
      });
      if (found != entries_.end()) {
        if (!override && (*found)->same_as(*published)) return false;
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
        previous_position = static_cast<size_t>(found - entries_.begin());
      }
      if (previous && entry_priority(*previous) == entry_priority(*published)) {
        *found = published;
      } else {
        if (previous) entries_.erase(found);
        entries_.insert(position_for(*published), published);
      }
    }
    journal_undo([this, published, previous, previous_position] {
      std::lock_guard lock(mutex_);
      auto found = std::find(entries_.begin(), entries_.end(), published);
      if (found != entries_.end()) entries_.erase(found);
      if (previous) insert_at(previous_position, previous);
    });
    return !previous;
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
      insert_at(position, removed);
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
  // Called with mutex_ held.
  auto position_for(const Entry& entry) {
    return std::find_if(entries_.begin(), entries_.end(), [&](const auto& existing) {
      return entry_priority(*existing) < entry_priority(entry);
    });
  }

  // Called with mutex_ held: puts an entry back where it was (undo).
  void insert_at(size_t position, std::shared_ptr<const Entry> entry) {
    position = std::min(position, entries_.size());
    entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(position), std::move(entry));
  }

  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<const Entry>> entries_;
};

}  // namespace tilec::target::detail
