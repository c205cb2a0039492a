# Sourced by scripts/setup.sh (with $PYTHON, "${pip[@]}" and unpack_wheel set) after the
# Debian packages: the pinned CUTLASS/CuTe headers this backend compiles against.
# Idempotent: does nothing when the files are in place.

# The CUTLASS/CuTe headers of the cuda backend's CuTe variant (src/cute/), pinned: PyPI's
# nvidia-cutlass wheel ships them under cutlass_library/source/include. Unpacked into
# the cache dir tilec looks in (TILEC_CUTLASS_INCLUDE overrides it at run time).
cutlass_version=4.2.0.0
cutlass_dir=${TILEC_CUTLASS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tilec/cutlass-$cutlass_version}
if [ ! -f "$cutlass_dir/include/cute/tensor.hpp" ]; then
  unpack_wheel "nvidia-cutlass==$cutlass_version" "$cutlass_dir" \
    cutlass_library/source/include/=include
fi
