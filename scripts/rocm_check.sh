#!/usr/bin/env bash
# The checks of the rocm backend that need an AMD GPU (ROCm's runtime installed), as one
# prepared run: (1) the `rocm` detector answers `hip -mcpu=gfxNNN` matching rocminfo;
# (2) every example, in its own dtype and in float16 and bfloat16 where it has a `dtype`
# constant, runs on that target through hiprtc against the reference interpreter
# (tilec run --check), and the gemm and flash_attention examples through hipcc as well;
# on gfx908/gfx90a/gfx94x the gemm runs on MFMA (the source must call the MFMA helpers).
# Without a GPU it stops with "no AMD GPU" and exit code 3.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TILEC_GPU_BUILD_DIR:-build-gpu}

[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -G Ninja -DTILEC_BUILD_TESTS=OFF -DTILEC_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target tilec -j "$(nproc)" >/dev/null
tilec="$build/tools/tilec/tilec"

detected=$("$tilec" targets --json | python3 -c '
import json, sys
for d in json.load(sys.stdin)["detectors"]:
    if d["name"] == "rocm":
        print(d.get("target") or "")
')
if [ -z "$detected" ]; then
  echo "rocm_check: no AMD GPU: the rocm detector found no HIP device" >&2
  exit 3
fi
arch=$(sed -n 's/.*-mcpu=\(gfx[0-9a-f]*\).*/\1/p' <<<"$detected")
echo "rocm detector: '$detected'"
status=0
if command -v rocminfo >/dev/null && ! rocminfo | grep -q "$arch"; then
  echo "FAIL: rocminfo does not list the detector's $arch" >&2
  status=1
fi
target="hip -mcpu=$arch"
for f in examples/*.py; do
  dtypes=("")
  grep -qE '^dtype *= *"' "$f" && dtypes+=(float16 bfloat16)
  for d in "${dtypes[@]}"; do
    defines=()
    [ -n "$d" ] && defines=(-D "dtype=$d")
    if ! "$tilec" run "$f" "${defines[@]}" --target "$target" --execution-backend hiprtc --check; then
      echo "FAIL: $f ${d:-} on $target (hiprtc)" >&2
      status=1
    fi
  done
done
for f in examples/gemm.py examples/flash_attention.py; do
  "$tilec" run "$f" --target "$target" --execution-backend hipcc --check || { echo "FAIL: $f (hipcc)" >&2; status=1; }
done
case "$arch" in
  gfx908 | gfx90a | gfx94*)
    if ! "$tilec" compile examples/gemm.py --target "$target" --emit device | grep -q "tilec_mfma_f32_16x16x16_f16("; then
      echo "FAIL: the float16 gemm does not use MFMA on $arch" >&2
      status=1
    fi
    ;;
esac
exit $status
