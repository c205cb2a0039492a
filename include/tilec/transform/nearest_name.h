// Helpers for error messages that say what is available and what the user
// probably meant: the closest known name by edit distance, and a stable,
// comma-separated listing of names. Shared by every registry's errors.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::transform {

// The candidate closest to `name` by edit distance, if it is close enough to be
// a plausible typo (at most a third of the longer name's length, minimum 2).
std::optional<std::string> nearest_name(std::string_view name,
                                        const std::vector<std::string>& candidates);

// "a, b, c", or "(none)" when empty, so messages never end in a dangling colon.
std::string join_names(const std::vector<std::string>& names);

// " (did you mean 'x'?)" or "" — appended to "unknown ..." errors.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace tilec::transform
