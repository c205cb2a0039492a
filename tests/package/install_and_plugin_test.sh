#!/usr/bin/env bash
# package.install_and_plugin (tests/package/CMakeLists.txt): installs the tilec build
# into a temporary prefix, builds examples/plugin against that prefix with
# find_package(tilec), and runs the installed `tilec` with only TILEC_PLUGIN_PATH
# set: the acme backend must be listed, resolve, compile with its own device code
# and host hook, and run vector_add.py with --check against the interpreter.
set -euo pipefail

for arg in "$@"; do
  case "$arg" in
    --build-dir=*) build_dir=${arg#*=} ;;
    --source-dir=*) source_dir=${arg#*=} ;;
    --cmake=*) cmake=${arg#*=} ;;
    --make-program=*) make_program=${arg#*=} ;;
    --cxx=*) cxx=${arg#*=} ;;
    --launcher=*) launcher=${arg#*=} ;;  # may be empty (no ccache)
    --config=*) config=${arg#*=} ;;
    *) echo "unknown option '$arg'" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/tilec-package-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

# Runs a command; on failure prints it with its output.
step() {
  local out
  if ! out=$("$@" 2>&1); then
    printf 'FAILED: %s\n%s\n' "$*" "$out" >&2
    exit 1
  fi
  printf '%s' "$out"
}

# The installed CLI in an environment holding nothing of the build: a fresh HOME
# (so the kernel cache lives in $work) and TILEC_PLUGIN_PATH, nothing else of ours.
# A sanitized build's run-time options (scripts/test_asan.sh: no leak report, since
# drivers such as wgpu-native keep allocations for the process) pass through.
installed_tilec() {
  local sanitizer_options=()
  [ -n "${ASAN_OPTIONS:-}" ] && sanitizer_options+=("ASAN_OPTIONS=$ASAN_OPTIONS")
  [ -n "${UBSAN_OPTIONS:-}" ] && sanitizer_options+=("UBSAN_OPTIONS=$UBSAN_OPTIONS")
  env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$work/home" "${sanitizer_options[@]}" \
    TILEC_PLUGIN_PATH="$work/plugin-build" "$prefix/bin/tilec" "$@"
}

expect() {  # expect TEXT NEEDLE WHAT
  grep -qF -- "$2" <<<"$1" || fail "$3: '$2' not found in:
$1"
}

echo "== install into $prefix"
step "$cmake" --install "$build_dir" --prefix "$prefix" >/dev/null
for path in bin/tilec include/tilec/backend/module_loader.h lib/cmake/tilec/tilecConfig.cmake \
  lib/cmake/tilec/tilecConfigVersion.cmake lib/cmake/tilec/tilecTargets.cmake; do
  [ -e "$prefix/$path" ] || fail "the install lacks $path"
done
ls "$prefix"/lib/libtilec_*.so >/dev/null 2>&1 || fail "the install has no lib/libtilec_*.so"
# RPATH: the installed tool and libraries resolve each other inside the prefix.
deps=$(env -i PATH=/usr/bin:/bin ldd "$prefix/bin/tilec")
if grep -E 'libtilec_' <<<"$deps" | grep -vqF "=> $prefix/"; then
  fail "the installed tilec loads tilec libraries from outside $prefix:
$deps"
fi
expect "$deps" "libtilec_engine.so => $prefix/" "ldd of the installed tilec"
grep -q 'not found' <<<"$deps" && fail "the installed tilec has unresolved libraries:
$deps"
step installed_tilec --help >/dev/null

echo "== build examples/plugin against the installed package"
configure=("$cmake" -S "$source_dir/examples/plugin" -B "$work/plugin-build" -G Ninja
  "-DCMAKE_MAKE_PROGRAM=$make_program" "-DCMAKE_CXX_COMPILER=$cxx"
  "-DCMAKE_BUILD_TYPE=$config" "-DCMAKE_PREFIX_PATH=$prefix")
[ -n "${launcher:-}" ] && configure+=("-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher")
step "${configure[@]}" >/dev/null
step "$cmake" --build "$work/plugin-build" >/dev/null
[ -f "$work/plugin-build/libtilec_plugin_acme.so" ] || fail "the plugin build made no libtilec_plugin_acme.so"

echo "== the installed CLI with TILEC_PLUGIN_PATH=$work/plugin-build"
# tilec::initialize() loads the plugins of TILEC_PLUGIN_PATH after the built-ins.
out=$(step installed_tilec backends --json)
expect "$out" '"name": "acme"' "tilec backends --json (the acme backend, loaded from TILEC_PLUGIN_PATH)"
expect "$out" '"acme_record_vector_width"' "tilec backends --json (the acme host codegen hook)"
out=$(step installed_tilec targets)
expect "$out" "SIMD lanes requested" "tilec targets (the acme kind's -vector_width attribute)"
out=$(step installed_tilec resolve --target "acme -vector_width=4" --json)
expect "$out" '"backend": "acme"' "tilec resolve"
expect "$out" '"execution_backend": "native"' "tilec resolve"

out=$(step installed_tilec compile "$source_dir/examples/vector_add.py" --target "acme -vector_width=4" \
  --emit device)
expect "$out" "/* acme: vector_width=4 */" "tilec compile --emit device (the acme codegen's marker)"
expect "$out" "simdlen(4)" "tilec compile --emit device (the vector width's pragma)"
# The hook's record is C text of the `c` host codegen acme declares (with LLVM built in,
# the default host is `llvm`, so the host is named here).
out=$(step installed_tilec compile "$source_dir/examples/vector_add.py" --target acme --target-host c \
  --emit host)
expect "$out" "acme_vector_width = 8" "tilec compile --emit host (the acme host codegen hook)"

out=$(step installed_tilec run "$source_dir/examples/vector_add.py" --target acme --check --json)
expect "$out" '"backend": "acme"' "tilec run --check"
echo "$out"

# A bad attribute value is named, with what to try.
if out=$(installed_tilec run "$source_dir/examples/vector_add.py" --target "acme -vector_width=3" 2>&1); then
  fail "a non-power-of-two vector width was accepted:
$out"
fi
expect "$out" "vector_width must be a power of two" "the acme width check"
# README's smallest CPU-family and GPU-family plugins: quoted whole by README, built
# above, and they run (mingpu on the emulator, without a GPU).
for name in cpu gpu; do
  file=$source_dir/examples/plugin/minimal_$name.cc
  python3 - "$source_dir/README.md" "$file" <<'PY' || fail "README does not quote $file whole"
import sys
readme, source = (open(path).read() for path in sys.argv[1:])
sys.exit(0 if "```c++\n" + source + "```" in readme else 1)
PY
done
out=$(step installed_tilec run "$source_dir/examples/vector_add.py" --target mincpu --check --json)
expect "$out" '"backend": "mincpu"' "tilec run --target mincpu --check"
out=$(step installed_tilec run "$source_dir/examples/vector_add.py" --target mingpu \
  --execution-backend emulator --check --json)
expect "$out" '"backend": "mingpu"' "tilec run --target mingpu --execution-backend emulator --check"
out=$(step installed_tilec compile "$source_dir/examples/vector_add.py" --target mingpu --emit device)
expect "$out" "__global__" "tilec compile --target mingpu --emit device (CUDA source)"

echo "package.install_and_plugin: ok"
