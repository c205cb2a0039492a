#!/usr/bin/env bash
# The test command: every unit and end-to-end test under CTest, then the
# ThreadSanitizer build of the registry concurrency test and the bounded fuzz runs.
# Expects scripts/setup.sh to have built build/. Ends with one summary line
# "tests: N passed, N failed" counting the CTest tests and the two extra suites.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake --build build -j "$jobs" || { echo "tests: 0 passed, 1 failed (build failed)"; exit 1; }

log=build/ctest-summary.log
(cd build && ctest --output-on-failure -j "$jobs" --timeout 600) | tee "$log"
ctest_status=${PIPESTATUS[0]}
summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")
failed=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$summary")
total=${total:-0}
failed=${failed:-0}
if [ "$ctest_status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
passed=$((total - failed))

for extra in scripts/test_tsan.sh scripts/fuzz.sh; do
  echo "== $extra"
  if "$extra"; then
    passed=$((passed + 1))
  else
    echo "== $extra FAILED"
    failed=$((failed + 1))
  fi
done

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
