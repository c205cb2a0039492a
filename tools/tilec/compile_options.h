// Options and steps shared by the subcommands that read a kernel file: the
// positional FILE with -D/--define (check, fmt, interp, compile, run), and the
// target selection plus the load, check and compile step (compile, run). Keeping
// them here keeps the flags' spelling and help text identical across commands.
#pragma once

#include "command.h"

#include "tilec/tilec.h"
#include "tilec/transform/instrument.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tilec::cli {

struct KernelFileOptions {
  std::string file;
  std::vector<std::string> defines;  // -D NAME=VALUE, unparsed
  std::string entry;                 // --entry NAME ("" = the file's only choice)
};

// Adds the positional FILE, -D/--define and --entry.
void add_kernel_file_options(CLI::App& sub, KernelFileOptions& options);

// Parses the kernel file with its -D overrides (a later -D of a name wins); throws
// ir::IRError (a SourceError for bad input) like ir::parse_kernel_file.
ir::IRModule load_kernel_file(const KernelFileOptions& options);

// Throws EngineError naming `file` when the module has no function to run or compile.
void require_functions(const ir::IRModule& module, const std::string& file);

// The whole text of `file` ("" when unreadable), for diagnostics with source lines.
std::string read_source(const std::string& file);

// Runs `body`; an ir::IRError it throws (file:line:col, the line and a caret) is
// printed to stderr and becomes exit status kExitUsage.
int report_source_errors(const std::function<int()>& body);

struct CompileOptions : KernelFileOptions {
  std::string target = "auto";
  std::string target_host;  // "" = derived from the target
  std::string execution_backend = "auto";
  bool bounds_check = false;        // --bounds-check: pass config tilec.bounds_check = true
  bool race_check = false;          // --racecheck: pass config tilec.emulator.racecheck = true
  std::vector<std::string> shapes;  // --shape NAME=VALUE (run, bench, tune); part of the tuning key
  // Pass instruments for this compilation (--print-after-all, --time-passes, tilec trace).
  std::vector<std::shared_ptr<transform::PassInstrument>> instruments;
  bool use_tuned_config = true;  // apply the cached best config of an autotuned kernel
  bool quiet = false;            // do not say which tuned config was used
};

// Adds FILE, --target, --target-host, --execution-backend, --bounds-check and -D/--define.
void add_compile_options(CLI::App& sub, CompileOptions& options);

// The pass config the options ask for (--bounds-check, --racecheck); part of the tuning key.
PassConfig pass_config_of(const CompileOptions& options);

struct CompiledFile {
  ir::IRModule module;
  Kernel kernel;
};

// Parses and checks the file (diagnostics show the source line) and compiles it. When
// the kernel has autotune configs and no -D sets a tuned parameter, the best config
// `tilec tune` stored for this target is used (and stderr says so).
CompiledFile compile_kernel_file(const CompileOptions& options);

// Prints one warning line on stderr (once per process) when a plugin on TILEC_PLUGIN_PATH
// failed to load, naming it and the cause; compile_kernel_file() calls it, so `run`,
// `compile` and every command that compiles a file say so, not only `tilec backends`.
void warn_about_failed_plugins();

// The backend context `options` resolve to (target, host, execution backend).
backend::BackendContext resolve_context(const CompileOptions& options);

}  // namespace tilec::cli
