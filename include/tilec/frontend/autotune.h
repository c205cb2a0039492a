// Autotune configurations as TileLang kernels write them: `@autotune(configs=...,
// warmup=, rep=)` on a factory or @tilelang.jit function, and
// `AutoTuner.from_kernel(kernel=k, configs=...)...run(warmup=, rep=)`. `configs` is a list
// of dicts or a function returning one (called with the decorated function's parameters
// it names). It is evaluated as Python would, by a small evaluator of the Python
// configuration code uses: literals, names, arithmetic, comparisons, list
// comprehensions, `itertools.product`, `zip`, `range`, `list`, `dict`, `len`,
// `dict.keys/values/items`, and calls of module-level or enclosing functions made of
// assignments, if/else, for loops, `list.append` and return. Each config becomes the
// `-D NAME=VALUE` defines that compile it (docs/semantics.md, "Factories").
#pragma once

#include "tilec/frontend/parser.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tilec::ir {

struct AutotuneSpec {
  std::string function;  // the tuned function (decorated, or given to AutoTuner)
  // The module-level function that holds the site (what --entry names), or "" for a site
  // at module level: `get_best_config` when it builds an AutoTuner for an inner `kernel`.
  std::string entry;
  // Each config as NAME -> VALUE texts for -D, in the order the configs list them.
  std::vector<std::map<std::string, std::string>> configs;
  int warmup = 0;  // as the source writes them; 0 where it does not
  int rep = 0;
  int line = 0;  // where the configs are written
  // The problem sizes: the integer parameters of the tuned function and the functions
  // enclosing the site that no config sets, with their values (-D, else the defaults).
  // `tilec tune` shrinks them to check each config on a small problem.
  std::map<std::string, int64_t> sizes;
};

// The first autotune site of the file (within `entry` when given): nullopt when there is
// none. `options.defines` give the enclosing functions' parameters (-D), else their
// defaults. Configs that cannot be evaluated, or are not a list of dicts of names to
// numbers, bools or strings, raise a SourceError at the configs expression.
std::optional<AutotuneSpec> find_autotune_spec(std::string_view source, const ParseOptions& options,
                                               const std::string& entry = "");
std::optional<AutotuneSpec> find_autotune_spec_in_file(
    const std::string& path, const std::map<std::string, std::string>& defines,
    const std::string& entry = "");

}  // namespace tilec::ir
