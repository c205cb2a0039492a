// One autotune candidate measured: the compiled kernel checked against the reference
// interpreter on the same random inputs (unless check is off) and timed with do_bench.
// `tilec tune` and tilec.autotune (Python) share it, so both rank configs the same way.
#pragma once

#include "tilec/engine/bench.h"
#include "tilec/engine/kernel.h"
#include "tilec/interp/interpreter.h"
#include "tilec/ir/function.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace tilec {

struct ConfigMeasurement {
  std::string status = "ok";  // "ok", "check failed", "run error"
  std::string error;          // the first mismatch or the error's first line
  double max_abs_err = 0;
  std::optional<BenchResult> timing;  // the sum over the module's functions, per call
};

// `make_args` gives each function's random arguments (ir::make_random_args with the
// caller's dimension values). Never throws for a failing kernel: the failure is the result.
ConfigMeasurement measure_config(
    const ir::IRModule& mod, const Kernel& kernel, bool check, const BenchOptions& bench,
    const std::function<ir::RandomArgs(const ir::PrimFunc&)>& make_args);

// The small problem `tilec tune` checks a config on (README, "tilec tune"): the config's
// block sizes are its integer entries named block*/tile* (any case: block_M, BLOCK_N,
// tile_k); L is their least common multiple. Each problem size (AutotuneSpec::sizes) that
// is a multiple of L and larger than two tiles (2*L) becomes 2*L, the smallest multiple
// of every block size that still holds two tiles, so each config's tiling, its edges and
// its loops over tiles are all exercised. Other sizes keep their value. Returns the
// sizes to change, NAME -> value (empty: no block sizes, or nothing to shrink).
std::map<std::string, int64_t> small_check_sizes(const std::map<std::string, std::string>& config,
                                                 const std::map<std::string, int64_t>& sizes);

}  // namespace tilec
