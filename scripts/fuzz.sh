#!/usr/bin/env bash
# Builds every libFuzzer target (fuzz/*_fuzz.cc) with clang-14, ASan and UBSan, then runs
# each one for a bounded time (TILEC_FUZZ_SECONDS, default 20) from its committed seed
# corpus fuzz/corpus/<name>/. Exits non-zero on any finding; crashing inputs are kept
# under <build>/fuzz-artifacts/<name>/ for reproduction (`<binary> <crash file>`).
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hashes paths relative to this checkout (see scripts/test.sh), also when this
# script runs on its own.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"

build=${TILEC_FUZZ_BUILD_DIR:-build-fuzz}
seconds=${TILEC_FUZZ_SECONDS:-20}

cmake -S . -B "$build" -G Ninja \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DTILEC_BUILD_FUZZ=ON -DTILEC_ONLY_CORE=ON -DTILEC_BUILD_TESTS=OFF -DTILEC_BUILD_BENCH=OFF
cmake --build "$build" --target fuzzers -j "$(nproc)"

shopt -s nullglob
sources=(fuzz/*_fuzz.cc)
if [ ${#sources[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz/*_fuzz.cc targets found" >&2
  exit 1
fi

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# One fuzzer's bounded run; its verdict is printed when it ends and its exit status says
# whether it found something.
fuzz_one() {
  local source=$1 name binary artifacts scratch log
  name=$(basename "$source" .cc)
  binary="$build/fuzz/$name"
  if [ ! -x "$binary" ]; then
    echo "fuzz.sh: $binary was not built" >&2
    return 1
  fi
  artifacts="$build/fuzz-artifacts/$name/"
  scratch="$build/fuzz-corpus/$name"  # new inputs go here; the committed seeds stay as they are
  mkdir -p "$artifacts" "$scratch"
  local seeds=()
  if [ -d "fuzz/corpus/$name" ]; then
    seeds=("fuzz/corpus/$name")
  fi
  log="$build/fuzz-logs/$name.log"  # libFuzzer's progress lines; only the summary is printed
  mkdir -p "$(dirname "$log")"
  if "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$artifacts" -print_final_stats=1 "$scratch" "${seeds[@]}" >"$log" 2>&1; then
    echo "== $name: no finding ($(grep -E '^stat::number_of_executed_units' "$log" | tr -s ' ' || true))"
  else
    tail -n 60 "$log" >&2
    echo "== $name: FINDING (inputs in $artifacts, full log $log)" >&2
    return 1
  fi
}

# The fuzzers run at the same time (their time is bounded, so CI waits for one bound, not
# one per fuzzer); each keeps its own log, and the verdicts print as they end.
echo "== fuzzing ${sources[*]} for ${seconds}s each, concurrently"
pids=()
for source in "${sources[@]}"; do
  fuzz_one "$source" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
exit $status
