#include "tilec/transform/nearest_name.h"

#include <algorithm>

namespace tilec::transform {
namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> nearest_name(std::string_view name,
                                        const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const auto& candidate : candidates) {
    size_t distance = edit_distance(name, candidate);
    size_t limit = std::max<size_t>(2, std::max(name.size(), candidate.size()) / 3);
    if (distance > limit) continue;
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string join_names(const std::vector<std::string>& names) {
  if (names.empty()) return "(none)";
  std::string joined;
  for (const auto& name : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  auto nearest = nearest_name(name, candidates);
  return nearest ? " (did you mean '" + *nearest + "'?)" : "";
}

}  // namespace tilec::transform
