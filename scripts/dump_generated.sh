#!/usr/bin/env bash
# Writes the lowered IR, host code and device code of every example on every target
# into OUTDIR/<example>/<target>.txt (stderr into .err), so two builds can be compared
# byte for byte: `scripts/dump_generated.sh /tmp/before build-old/tools/tilec/tilec`,
# the same for the new build, then `diff -r /tmp/before /tmp/after`. Used to show that
# a refactoring (printers, IR functors, the front end) changed no generated code.
# Only compiles: nothing is built or run, so it needs no device or toolkit.
set -uo pipefail
out=${1:?usage: scripts/dump_generated.sh OUTDIR [TILEC]}
tilec=${2:-build/tools/tilec/tilec}
cd "$(dirname "$0")/.."
targets=(
  "c" "llvm" "opencl" "cuda -arch=sm_80" "cuda -arch=sm_90 -keys=cuda,gpu,cute"
  "hip -mcpu=gfx90a" "metal" "webgpu"
)
mkdir -p "$out"
for example in examples/*.py; do
  name=$(basename "$example" .py)
  mkdir -p "$out/$name"
  for target in "${targets[@]}"; do
    file="$out/$name/$(tr ' =,' '___' <<<"$target")"
    XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp} "$tilec" compile "$example" --target "$target" \
      --emit lowered,host,device >"$file.txt" 2>"$file.err"
    echo "exit $?" >>"$file.err"
  done
done
echo "wrote $(find "$out" -name '*.txt' | wc -l) listings under $out"
