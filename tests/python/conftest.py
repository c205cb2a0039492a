"""pytest set-up for the tilec package tests: a kernel cache of the session's own (so
cache_hit is predictable and nothing is left in ~/.cache), and the repository paths."""

import atexit
import os
import pathlib
import shutil
import tempfile

_cache = tempfile.mkdtemp(prefix="tilec-pytest-cache-")
atexit.register(shutil.rmtree, _cache, ignore_errors=True)
os.environ["TILEC_CACHE_DIR"] = _cache
os.environ.pop("TILEC_DISABLE_CACHE", None)

import pytest  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.fixture
def examples():
    return EXAMPLES
