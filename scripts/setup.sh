#!/usr/bin/env bash
# One idempotent set-up command: installs every build and test dependency from
# Debian's packages on a fresh Debian 12 machine, configures and builds tilec into
# build/ (warnings are errors), then installs it into $TILEC_PREFIX (default
# /usr/local) so `tilec` is on PATH. Safe to run again; only missing packages are
# installed, the build is incremental and the install copies only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  clang-14 libclang-rt-14-dev clang-format llvm-16-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libdlpack-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev ocl-icd-opencl-dev pocl-opencl-icd
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILEC_WERROR=ON
cmake --build build -j "$(nproc)"
echo "setup: built build/tools/tilec/tilec"

# The tool, the libraries, the headers and the CMake package (find_package(tilec)).
prefix=${TILEC_PREFIX:-/usr/local}
SUDO=""; [ -w "$prefix" ] || [ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO cmake --install build --prefix "$prefix" >/dev/null
echo "setup: installed tilec into $prefix (run it as: tilec ...)"
