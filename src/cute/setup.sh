# Sourced by scripts/setup.sh (with $PYTHON and "${pip[@]}" set) after the Debian packages:
# the pinned CUTLASS/CuTe headers this backend compiles against.
# Idempotent: does nothing when the files are in place.

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
