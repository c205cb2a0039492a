#!/usr/bin/env bash
# Checks on a machine with an NVIDIA GPU what this one cannot: the `cuda` target
# detector (libcuda.so.1 loaded with dlopen, device 0's compute capability) must
# answer `cuda -arch=sm_XY` matching nvidia-smi, and `target="auto"` must pick it
# first. Until a cuda backend is registered, resolving that target must fail with
# the clear "no backend" error that lists the registered backends. Needs the
# build dependencies of scripts/setup.sh (it does not install them).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TILEC_GPU_BUILD_DIR:-build-gpu}

[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -G Ninja -DTILEC_BUILD_TESTS=OFF -DTILEC_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target tilec -j "$(nproc)"
tilec="$build/tools/tilec/tilec"

expected=""
if command -v nvidia-smi >/dev/null; then
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d ' .')
  expected="sm_${cap}"
fi
"$tilec" targets
detected=$("$tilec" targets --json | python3 -c '
import json, sys
report = json.load(sys.stdin)
for d in report["detectors"]:
    if d["name"] == "cuda":
        print(d.get("target") or "")
')
echo "cuda detector: '${detected}' (nvidia-smi: '${expected:-unknown}')"
case "$detected" in
  cuda*"-arch=${expected}"*) echo "ok: detector matches the device" ;;
  *) echo "FAIL: the cuda detector did not report ${expected:-a cuda target}" >&2; exit 1 ;;
esac
if "$tilec" resolve --json 2>resolve.err; then
  echo "resolve: a backend for the detected target is registered"
else
  grep -q "cpu" resolve.err && echo "ok: auto -> cuda has no backend yet, and the error lists: $(head -c 300 resolve.err)"
fi
rm -f resolve.err
