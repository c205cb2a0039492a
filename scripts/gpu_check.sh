#!/usr/bin/env bash
# The checks of the cuda backend that need an NVIDIA GPU, as one prepared run (well
# under 10 minutes): (1) the `cuda` detector answers `cuda -arch=sm_XY` matching
# nvidia-smi; (2) every example runs on `cuda -arch=sm_XY` (nvrtc) against the reference
# interpreter (tilec run --check), and on the CuTe variant when one is registered;
# (3) the tensor-core gemm (mma.sync + ldmatrix, sm_80+): the GEMM below must compile to
# it and its T.Pipelined loop to the cp.async pipeline, and it runs against the
# interpreter in bfloat16, with 128 x 128 block tiles and with masked (zero-filled) edges;
# on sm_90 the CuTe variant's gemm must compile to SM90 GMMA atoms (wgmma) and run the
# same way; (4) DLPack kDLCUDA tensors on a stream and mixed with host ones (the tilec_cuda_tests
# that need a GPU); (5) float16 GEMM 4096^3 against cuBLAS (cublasGemmEx) and vector add against
# device-to-device copy bandwidth (and the CuTe GMMA gemm on sm_90), printing the ratios. tilec's times are `tilec run`'s
# run_ms, which today include copying host tensors to the device and back (the host
# entry takes kDLCPU tensors), so the ratios understate the kernels. Without a GPU it
# stops with "no GPU" and exit code 3. Needs the build dependencies of scripts/setup.sh
# and the CUDA toolkit (nvcc, cuBLAS) for the reference program.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TILEC_GPU_BUILD_DIR:-build-gpu}

[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -G Ninja -DTILEC_BUILD_TESTS=OFF -DTILEC_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target tilec -j "$(nproc)" >/dev/null
tilec="$build/tools/tilec/tilec"

detected=$("$tilec" targets --json | python3 -c '
import json, sys
report = json.load(sys.stdin)
for d in report["detectors"]:
    if d["name"] == "cuda":
        print(d.get("target") or "")
')
if [ -z "$detected" ]; then
  echo "gpu_check: no GPU: the cuda detector found no CUDA device ($("$tilec" targets 2>&1 | grep -i 'cuda' | grep -i -m1 'no \|fail' || true))" >&2
  exit 3
fi
arch=$(sed -n 's/.*-arch=\(sm_[0-9a-z]*\).*/\1/p' <<<"$detected")
expected=""
if command -v nvidia-smi >/dev/null; then
  expected="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d ' .')"
fi
echo "cuda detector: '$detected' (nvidia-smi: '${expected:-unknown}')"
status=0
if [ -n "$expected" ] && [ "$arch" != "$expected" ]; then
  echo "FAIL: the detector's arch $arch differs from nvidia-smi's $expected" >&2
  status=1
fi

targets=("cuda -arch=$arch")
if "$tilec" resolve --target "cuda -arch=$arch -keys=cuda,gpu,cute" --json >/dev/null 2>&1; then
  targets+=("cuda -arch=$arch -keys=cuda,gpu,cute")
else
  echo "note: no CuTe variant is registered; examples run on the cuda backend only"
fi
for target in "${targets[@]}"; do
  for file in examples/*.py; do
    if out=$("$tilec" run "$file" --target "$target" --check 2>&1); then
      echo "ok    [$target] $file"
    else
      echo "FAIL  [$target] $file: $(tail -3 <<<"$out")"
      status=1
    fi
  done
done

check_gemm() {  # LABEL TARGET "-D..." ...: examples/gemm.py with each option list, --check
  local label=$1 target=$2 extra out
  shift 2
  for extra in "$@"; do
    # shellcheck disable=SC2086  # $extra is a list of options
    if out=$("$tilec" run examples/gemm.py --target "$target" --check $extra 2>&1); then
      echo "ok    [$label] examples/gemm.py $extra"
    else
      echo "FAIL  [$label] examples/gemm.py $extra: $(tail -3 <<<"$out")"
      status=1
    fi
  done
}

gemm_4096=(-D M=4096 -D N=4096 -D K=4096 -D block_M=128 -D block_N=128 -D block_K=32)
sm=${arch#sm_}
sm=${sm%%[af]*}
if [ "$sm" -ge 80 ]; then
  gemm_device=$("$tilec" compile examples/gemm.py --target "cuda -arch=$arch" --emit device "${gemm_4096[@]}")
  if grep -q "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" <<<"$gemm_device"; then
    echo "ok    tensor cores: examples/gemm.py compiles to mma.sync m16n8k16 with ldmatrix"
  else
    echo "FAIL  examples/gemm.py does not use the tensor-core gemm on $arch" >&2
    status=1
  fi
  if grep -q "tilec_cp_async_cg16(&" <<<"$gemm_device"; then
    echo "ok    cp.async pipeline: examples/gemm.py's T.Pipelined copies are cp.async.cg"
  else
    echo "FAIL  examples/gemm.py's T.Pipelined loop is not a cp.async pipeline on $arch" >&2
    status=1
  fi
  # bfloat16, 128 x 128 tiles, and edges the cp.async copies zero-fill (masked M, N, K).
  check_gemm "tensor cores" "cuda -arch=$arch" "-D dtype=bfloat16" \
    "-D M=512 -D N=512 -D K=512 -D block_M=128 -D block_N=128" \
    "-D M=200 -D N=136 -D K=100" "-D dtype=float32 -D M=200 -D N=136 -D K=100"
else
  echo "note: $arch is below sm_80: gemm uses the SIMT implementation, not tensor cores"
fi

# (3b) the CuTe variant's warpgroup MMA on sm_90: examples/gemm.py must compile to
# SM90 GMMA atoms (wgmma, tiles in GMMA's swizzled layouts, built for sm_90a) and run
# against the interpreter at the shapes above, including masked edges.
cute_target="cuda -arch=$arch -keys=cuda,gpu,cute"
cute_gmma=0
if [ "$sm" -eq 90 ] && [ "${#targets[@]}" -gt 1 ]; then
  cute_device=$("$tilec" compile examples/gemm.py --target "$cute_target" --emit device "${gemm_4096[@]}")
  if grep -q "tilec_cute::gemm_ss<3, " <<<"$cute_device"; then
    echo "ok    CuTe GMMA: examples/gemm.py compiles to SM90_64xNx16 GMMA atoms (wgmma)"
    cute_gmma=1
  else
    echo "FAIL  examples/gemm.py does not use GMMA atoms on the CuTe variant at $arch" >&2
    status=1
  fi
  check_gemm "CuTe GMMA" "$cute_target" "-D dtype=bfloat16" \
    "-D M=512 -D N=512 -D K=512 -D block_M=128 -D block_N=128" "-D M=200 -D N=192 -D K=96"
fi

# kDLCUDA device tensors: allocated with the driver API, run on a stream and mixed with
# host tensors, compared with the host computation (tests/cuda/device_tensors_gpu_test.cc).
cmake -S . -B "$build" -DTILEC_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target tilec_cuda_tests -j "$(nproc)" >/dev/null
if out=$("$build/tests/cuda/tilec_cuda_tests" --gtest_filter='CudaDeviceTensorsOnGpu.*:HostCodegens/CudaDeviceTensors.*' 2>&1); then
  echo "ok    kDLCUDA device tensors, a stream, mixed arguments ($(grep -c '^\[       OK' <<<"$out") tests)"
else
  echo "FAIL  kDLCUDA device tensors: $(grep -A3 -m3 'Failure\|FAILED' <<<"$out")"
  status=1
fi

run_ms() {  # FILE TARGET -D...: the first function's run_ms (median of 5 runs)
  local file=$1 target=$2
  shift 2
  for _ in 1 2 3 4 5; do
    "$tilec" run "$file" --target "$target" --json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["run_ms"])'
  done | sort -g | sed -n 3p
}

reference=$(mktemp -d)/gpu_reference
if ! nvcc -O2 -o "$reference" scripts/gpu_reference.cu -lcublas; then
  echo "FAIL: cannot build scripts/gpu_reference.cu with nvcc and cuBLAS" >&2
  exit 1
fi
gemm_ms=$(run_ms examples/gemm.py "cuda -arch=$arch" "${gemm_4096[@]}")
cute_ms=0
if [ "$cute_gmma" -eq 1 ]; then
  cute_ms=$(run_ms examples/gemm.py "$cute_target" "${gemm_4096[@]}")
fi
cublas_ms=$("$reference" gemm 4096 4096 4096 | sed 's/ms=//')
n=$((64 * 1024 * 1024))
add_ms=$(run_ms examples/vector_add.py "cuda -arch=$arch" -D N=$n -D block_N=1024)
# vector add moves 3 float32 arrays: compare with copying the same bytes device to device.
copy_ms=$("$reference" copy $((3 * 4 * n / 2)) | sed 's/ms=//')
python3 - "$gemm_ms" "$cublas_ms" "$add_ms" "$copy_ms" "$cute_ms" <<'PY'
import sys
gemm, cublas, add, copy, cute = map(float, sys.argv[1:])
flops = 2 * 4096 ** 3
print(f"float16 GEMM 4096^3: tilec {gemm:.3f} ms ({flops / gemm / 1e9:.1f} TFLOP/s), cuBLAS {cublas:.3f} ms; ratio {cublas / gemm:.3f}x cuBLAS (goal 0.9x)")
if cute > 0:
    print(f"float16 GEMM 4096^3 on the CuTe variant (GMMA): {cute:.3f} ms ({flops / cute / 1e9:.1f} TFLOP/s); ratio {cublas / cute:.3f}x cuBLAS")
print(f"vector add 64Mi float32: tilec {add:.3f} ms, device copy of the same bytes {copy:.3f} ms; ratio {copy / add:.3f}x copy bandwidth (goal 0.85x)")
PY
exit $status
