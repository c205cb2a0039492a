#!/usr/bin/env bash
# One idempotent set-up command: installs every build and test dependency from
# Debian's packages on a fresh Debian 12 machine, configures and builds tilec into
# build/ (warnings are errors), then installs it into $TILEC_PREFIX (default
# /usr/local) so `tilec` is on PATH, and the `tilec` Python package for `python3`
# (its build requirements and test tools from PyPI: nanobind, scikit-build-core,
# numpy, pytest). Each target backend adds its own in its folder: Debian packages in
# src/<name>/debian-packages, other steps (pinned wheels: CUTLASS for cute, wgpu-native
# for webgpu) in src/<name>/setup.sh. Safe to run again; only missing packages are
# installed, the build is incremental and the install copies only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hashes paths relative to this checkout, so a fresh clone elsewhere (CI) and
# the sanitizer and fuzz builds reuse objects that another checkout compiled.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
# Room for the plain, ASan, TSan and fuzz builds at once (ccache's default 5 GB
# would evict one build to make room for the next, and CI would rebuild cold).
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  clang-14 libclang-rt-14-dev clang-format
  nlohmann-json3-dev libcli11-dev libfmt-dev libdlpack-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev
  python3 python3-dev python3-pip python3-venv
  chromium
)
# Each target backend lists the Debian packages its toolchain needs in its own folder
# (src/<name>/debian-packages: names separated by blanks, `#` comments), so a new backend
# adds none here.
for list in src/*/debian-packages; do
  read -r -a listed <<<"$(sed 's/#.*//' "$list" | tr '\n' ' ')"
  packages+=("${listed[@]}")
done
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

# The Python package's build requirements and test tools, for README's python3. A
# Debian-managed python3 (PEP 668) gets them next to its own packages, as root.
PYTHON=${PYTHON:-python3}
pip=("$PYTHON" -m pip install -q --disable-pip-version-check)
if "$PYTHON" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
  pip+=(--break-system-packages)
  [ "$(id -u)" = 0 ] || pip=(sudo "${pip[@]}")
fi
"${pip[@]}" nanobind scikit-build-core numpy pytest
# Each target backend's own set-up steps (src/<name>/setup.sh: toolchain files from PyPI
# wheels, pinned), sourced here with $PYTHON, "${pip[@]}" and unpack_wheel at hand.
source scripts/unpack_wheel.sh
for hook in src/*/setup.sh; do
  # shellcheck source=/dev/null
  source "$hook"
done

# TILEC_BUILD_PYTHON: build/ also holds the extension module (build/python/tilec), so
# the package below reuses this build instead of compiling the project again.
# Line tables only (-g1): backtraces and profiles keep file:line, and full debug info
# would make the cold build (CI on a new machine) about 30% slower.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILEC_WERROR=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DTILEC_BUILD_PYTHON=ON -DPython_EXECUTABLE="$("$PYTHON" -c 'import sys; print(sys.executable)')"
cmake --build build -j "$(nproc)"
echo "setup: built build/tools/tilec/tilec"

# The tool, the libraries, the headers and the CMake package (find_package(tilec)).
prefix=${TILEC_PREFIX:-/usr/local}
SUDO=""; [ -w "$prefix" ] || [ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO cmake --install build --prefix "$prefix" >/dev/null
echo "setup: installed tilec into $prefix (run it as: tilec ...)"

# The Python package, built by scikit-build-core in build/ (already built above: this
# only installs the module, the layer libraries and the Python files).
"${pip[@]}" --no-build-isolation -Cbuild-dir=build .
echo "setup: installed the tilec Python package for $PYTHON ($("$PYTHON" -c 'import tilec, os; print(os.path.dirname(tilec.__file__))'))"
