#!/usr/bin/env bash
# ThreadSanitizer run of the registry concurrency tests: configures build-tsan
# with only the core layers, builds the backend test binary (and its plugins)
# and fails on any ThreadSanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hashes paths relative to this checkout (see scripts/test.sh), also when this
# script runs on its own.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"
build=${TILEC_TSAN_BUILD_DIR:-build-tsan}
flags=-fsanitize=thread
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DTILEC_ONLY_CORE=ON -DTILEC_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DCMAKE_SHARED_LINKER_FLAGS="$flags" -DCMAKE_MODULE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$build" -j "$(nproc)" --target tilec_backend_tests
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  "$build/tests/backend/tilec_backend_tests" --gtest_filter='ConcurrencyTest.*'
