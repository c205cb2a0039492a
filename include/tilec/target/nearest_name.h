// Helpers for error messages that say what is available and what the user probably
// meant: the closest known name by edit distance, a "did you mean" suffix and a stable,
// comma-separated listing. The one copy for every layer's "unknown ..." errors; it
// lives in the target layer because that is the bottom layer every other one links.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::target {

// The candidate closest to `name` by optimal string alignment distance (a swap of two
// neighbours, "arhc" for "arch", counts as one typo), if it is a plausible typo: at
// most a third of `name`'s length, between 1 and 3. Ties go to the earlier candidate.
std::optional<std::string> nearest_name(std::string_view name,
                                        const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "": appended right after the unknown name in an error.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

// "a, b, c", or "(none)" when empty, so messages never end in a dangling colon.
std::string join_names(const std::vector<std::string>& names);

}  // namespace tilec::target
