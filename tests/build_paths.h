// Where this build's source tree, build tree, `tilec` executable and CLI test plugins
// are, for tests and benchmarks. The values live in one file generated per build tree
// (cmake/TilecBuildPaths.cmake, library tilec_build_paths), not in compile definitions:
// every object that includes this header is then the same in every checkout, so
// ccache shares it between worktrees and a fresh clone (CI) instead of recompiling
// each test that names a path.
#pragma once

const char* tilec_build_source_dir();
const char* tilec_build_binary_dir();
// Empty in builds without the tool (TILEC_ONLY_CORE).
const char* tilec_build_executable();
const char* tilec_build_cli_plugin_dir();

#define TILEC_SOURCE_DIR tilec_build_source_dir()
#define TILEC_BINARY_DIR tilec_build_binary_dir()
#define TILEC_EXECUTABLE tilec_build_executable()
#define TILEC_CLI_PLUGIN_DIR tilec_build_cli_plugin_dir()
