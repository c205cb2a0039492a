#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run of the whole CTest suite:
# configures build-asan (shares ccache with build/) at -O1 with line tables only
# (-g1: a sanitizer report needs file:line, not variables) and no benchmarks, to keep
# CI time down, and runs every test with the generated kernels compiled by the
# native execution backend under the same sanitizers ($CC carries the flags, and
# the kernel cache keys on $CC, so sanitized kernels never mix with plain ones).
# Any sanitizer report fails the test it happens in.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hashes paths relative to this checkout (see scripts/test.sh).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"
build=${TILEC_ASAN_BUILD_DIR:-build-asan}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# CMAKE_*_FLAGS_DEBUG emptied: Debug's own "-g" came after "-g1" and won, which cost a
# quarter of this build's time.
# The test sources at -O0 (TILEC_TEST_COMPILE_OPTIONS, tests/CMakeLists.txt): they are 160
# of this build's ~390 files, and a sanitized -O1 compile of one costs ~40% more (28.0 s
# against 20.2 s for e2e_examples_test.cc), while what runs long under the sanitizers is
# the libraries and the kernels, which stay at -O1.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTILEC_BUILD_BENCH=OFF \
  -DTILEC_TEST_COMPILE_OPTIONS=-O0 \
  -DCMAKE_CXX_FLAGS_DEBUG= -DCMAKE_C_FLAGS_DEBUG= \
  -DCMAKE_CXX_FLAGS="-O1 -g1 $flags" -DCMAKE_C_FLAGS="-O1 -g1 $flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
  -DCMAKE_MODULE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$build" -j "$(nproc)"
export CC="${CC:-cc} $flags"
# Generated kernels are dlopen'ed into the sanitized test processes; leak checking
# is off because dlclose'd kernel libraries and the CLI's intentional process-exit
# registries are not leaks worth failing on.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TILEC_CACHE_DIR="$PWD/$build/asan-kernel-cache"
(cd "$build" && ctest -j "$(nproc)" --timeout 900 --output-on-failure -LE no_asan)
