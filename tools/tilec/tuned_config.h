// The link between `tilec tune` and the commands that compile: the tuning key of a
// kernel file for the options given, and the use of the stored best config.
#pragma once

#include "compile_options.h"

#include "tilec/frontend/autotune.h"

#include <optional>

namespace tilec::cli {

// The autotune configs of the file (nullopt: it has none), evaluated with its -D values.
std::optional<ir::AutotuneSpec> autotune_spec(const CompileOptions& options);

// The key `tilec tune` stores the best config under for these options.
TuningKey tuning_key(const CompileOptions& options);

// When the file has configs and no -D sets a tuned name, adds the stored best config's
// values to options.defines and (unless quiet) says so on stderr; when none is stored,
// applies the first config and says how to tune. True when a config was applied.
bool apply_tuned_config(CompileOptions& options, bool quiet);

}  // namespace tilec::cli
