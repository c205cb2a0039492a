# Sourced by scripts/setup.sh (with $PYTHON, "${pip[@]}" and unpack_wheel set) after the
# Debian packages: the pinned wgpu-native library and headers, and Dawn's Tint for the tests.
# Idempotent: does nothing when the files are in place.

# wgpu-native (the webgpu target's `wgpu` execution backend, src/webgpu/), pinned: PyPI's
# wgpu wheel ships the library and its C headers (webgpu.h, wgpu.h) under
# wgpu/resources. Unpacked into the cache dir that CMake and tilec look in
# (TILEC_WGPU_DIR at configure time, TILEC_WGPU_LIBRARY at run time override it); tilec
# loads the library with dlopen at first use, and mesa-vulkan-drivers (lavapipe) above
# gives it a Vulkan device on the CPU.
wgpu_version=0.32.0
wgpu_dir=${TILEC_WGPU_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tilec/wgpu-$wgpu_version}
if [ ! -f "$wgpu_dir/lib/libwgpu_native.so" ] || [ ! -f "$wgpu_dir/include/webgpu.h" ]; then
  unpack_wheel "wgpu==$wgpu_version" "$wgpu_dir" \
    wgpu/resources/webgpu.h=include/webgpu.h wgpu/resources/wgpu.h=include/wgpu.h \
    wgpu/resources/libwgpu_native-release.so=lib/libwgpu_native.so
fi

# Dawn's WGSL compiler (Tint, as browsers run it): the webgpu tests check every WGSL they
# generate with it too (tests/webgpu; skipped, saying why, without it).
"${pip[@]}" dawn-python==0.3.0
