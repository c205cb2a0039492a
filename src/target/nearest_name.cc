#include "tilec/target/nearest_name.h"

#include <algorithm>

namespace tilec::target {
namespace {

// Optimal string alignment distance: Levenshtein plus the transposition of neighbours.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> nearest_name(std::string_view name,
                                        const std::vector<std::string>& candidates) {
  // Long names tolerate more typos; a one-letter name would "match" everything.
  const size_t budget = std::max<size_t>(1, std::min<size_t>(3, name.size() / 3));
  const std::string* best = nullptr;
  size_t best_distance = budget + 1;
  for (const auto& candidate : candidates) {
    size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = &candidate;
    }
  }
  return best ? std::optional<std::string>(*best) : std::nullopt;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  auto nearest = nearest_name(name, candidates);
  return nearest ? " (did you mean '" + *nearest + "'?)" : "";
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

}  // namespace tilec::target
