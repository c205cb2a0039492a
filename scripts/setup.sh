#!/usr/bin/env bash
# One idempotent set-up command: installs every build and test dependency from
# Debian's packages on a fresh Debian 12 machine, configures and builds tilec into
# build/ (warnings are errors), then installs it into $TILEC_PREFIX (default
# /usr/local) so `tilec` is on PATH, and the `tilec` Python package for `python3`
# (its build requirements and test tools from PyPI: nanobind, scikit-build-core,
# numpy, pytest) and the pinned CUTLASS/CuTe headers (PyPI nvidia-cutlass). Safe to run
# again; only missing packages are installed, the build
# is incremental and the install copies only what changed.
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
  clang-14 libclang-rt-14-dev clang-format llvm-16-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libdlpack-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev ocl-icd-opencl-dev pocl-opencl-icd
  mesa-vulkan-drivers libvulkan1
  # the rocm backend: ROCm 5.2's hipcc (with the HIP runtime libamdhip64, whose hiprtc
  # the hiprtc execution backend loads) and llvm-objdump-15, which disassembles gfx code
  # objects for the tests; no AMD GPU is needed to build or test
  hipcc libamdhip64-dev llvm-15
  python3 python3-dev python3-pip python3-venv
  chromium
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

# The Python package's build requirements and test tools, for README's python3. A
# Debian-managed python3 (PEP 668) gets them next to its own packages, as root.
PYTHON=${PYTHON:-python3}
pip=("$PYTHON" -m pip install -q --disable-pip-version-check)
if "$PYTHON" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
  pip+=(--break-system-packages)
  [ "$(id -u)" = 0 ] || pip=(sudo "${pip[@]}")
fi
"${pip[@]}" nanobind scikit-build-core numpy pytest
# Dawn's WGSL compiler (Tint, as browsers run it): the webgpu tests check every WGSL they
# generate with it too (tests/webgpu; skipped, saying why, without it).
"${pip[@]}" dawn-python==0.3.0

# The CUTLASS/CuTe headers of the cuda backend's CuTe variant (src/cute/), pinned: PyPI's
# nvidia-cutlass wheel ships them under cutlass_library/source/include. Unpacked into
# the cache dir tilec looks in (TILEC_CUTLASS_INCLUDE overrides it at run time).
cutlass_version=4.2.0.0
cutlass_dir=${TILEC_CUTLASS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tilec/cutlass-$cutlass_version}
if [ ! -f "$cutlass_dir/include/cute/tensor.hpp" ]; then
  wheel_dir=$(mktemp -d)
  "$PYTHON" -m pip download -q --disable-pip-version-check --no-deps \
    "nvidia-cutlass==$cutlass_version" -d "$wheel_dir"
  mkdir -p "$cutlass_dir"
  "$PYTHON" -c 'import sys, zipfile, pathlib
wheel, out = sys.argv[1], pathlib.Path(sys.argv[2])
prefix = "cutlass_library/source/include/"
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            target = out / "include" / name[len(prefix):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(name))' "$wheel_dir"/nvidia_cutlass-*.whl "$cutlass_dir"
  rm -rf "$wheel_dir"
fi

# wgpu-native (the webgpu target's `wgpu` execution backend, src/webgpu/), pinned: PyPI's
# wgpu wheel ships the library and its C headers (webgpu.h, wgpu.h) under
# wgpu/resources. Unpacked into the cache dir that CMake and tilec look in
# (TILEC_WGPU_DIR at configure time, TILEC_WGPU_LIBRARY at run time override it); tilec
# loads the library with dlopen at first use, and mesa-vulkan-drivers (lavapipe) above
# gives it a Vulkan device on the CPU.
wgpu_version=0.32.0
wgpu_dir=${TILEC_WGPU_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tilec/wgpu-$wgpu_version}
if [ ! -f "$wgpu_dir/lib/libwgpu_native.so" ] || [ ! -f "$wgpu_dir/include/webgpu.h" ]; then
  wheel_dir=$(mktemp -d)
  "$PYTHON" -m pip download -q --disable-pip-version-check --no-deps \
    "wgpu==$wgpu_version" -d "$wheel_dir"
  mkdir -p "$wgpu_dir/include" "$wgpu_dir/lib"
  "$PYTHON" -c 'import sys, zipfile, pathlib
wheel, out = sys.argv[1], pathlib.Path(sys.argv[2])
files = {"wgpu/resources/webgpu.h": "include/webgpu.h", "wgpu/resources/wgpu.h": "include/wgpu.h",
         "wgpu/resources/libwgpu_native-release.so": "lib/libwgpu_native.so"}
with zipfile.ZipFile(wheel) as z:
    for name, target in files.items():
        (out / target).write_bytes(z.read(name))' "$wheel_dir"/wgpu-*.whl "$wgpu_dir"
  rm -rf "$wheel_dir"
fi

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
