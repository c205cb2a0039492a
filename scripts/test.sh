#!/usr/bin/env bash
# The test command: every unit and end-to-end test under CTest, then the pytest
# suite of the Python package as set-up installed it for python3 (tests/python, run
# outside the source tree so the installed package is the one imported; CTest's
# python.pytest runs the same suite on build/python). Expects scripts/setup.sh to have
# built build/. Ends with one summary line
# "tests: N passed, N failed" counting the CTest tests, each pytest test of the
# installed package and the three extra suites (one each): the ThreadSanitizer build of
# the registry concurrency test, the bounded fuzz runs, and the AddressSanitizer +
# UndefinedBehaviorSanitizer run of the whole suite (scripts/test_asan.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
# ccache hashes paths relative to this checkout, so a fresh clone elsewhere (CI) and
# the sanitizer and fuzz builds reuse objects that another checkout compiled.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
# Room for the plain, ASan, TSan and fuzz builds at once (ccache's default 5 GB
# would evict one build to make room for the next, and CI would rebuild cold).
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"
jobs=$(nproc)

cmake --build build -j "$jobs" || { echo "tests: 0 passed, 1 failed (build failed)"; exit 1; }

started=$SECONDS
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
echo "== ctest took $((SECONDS - started)) s"

echo "== pytest tests/python (installed tilec package)"
pylog=build/pytest-installed.log
repo=$PWD
(cd /tmp && env -u PYTHONPATH "${PYTHON:-python3}" -m pytest -q -p no:cacheprovider "$repo/tests/python") | tee "$pylog"
pytest_status=${PIPESTATUS[0]}
# pytest's last line: "N failed, N passed, N skipped, N errors in S.SSs".
py_summary=$(grep -E ' in [0-9.]+s' "$pylog" | tail -n 1)
py_passed=0
py_failed=0
for count in $(grep -oE '[0-9]+ passed' <<<"$py_summary" | cut -d' ' -f1); do py_passed=$((py_passed + count)); done
for count in $(grep -oE '[0-9]+ (failed|errors?)' <<<"$py_summary" | cut -d' ' -f1); do py_failed=$((py_failed + count)); done
if [ "$pytest_status" -ne 0 ] && [ "$py_failed" -eq 0 ]; then py_failed=1; fi
passed=$((passed + py_passed))
failed=$((failed + py_failed))

for extra in scripts/test_tsan.sh scripts/fuzz.sh scripts/test_asan.sh; do
  echo "== $extra"
  started=$SECONDS
  if "$extra"; then
    passed=$((passed + 1))
  else
    echo "== $extra FAILED"
    failed=$((failed + 1))
  fi
  # Each suite's wall time, so a CI run that grows says where it grew.
  echo "== $extra took $((SECONDS - started)) s"
done

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
