#!/usr/bin/env bash
# The test command: every unit and end-to-end test under CTest, then the
# ThreadSanitizer build of the registry concurrency test and the bounded fuzz runs.
# Expects scripts/setup.sh to have built build/.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake --build build -j "$jobs"
status=0
(cd build && ctest --output-on-failure -j "$jobs" --timeout 600) || status=1

for extra in scripts/test_tsan.sh scripts/fuzz.sh; do
  if [ -x "$extra" ]; then
    echo "== $extra"
    "$extra" || status=1
  fi
done
exit $status
