"""tilec.autotune (issue 36): a file's own configs tuned with its failing config kept in
the table, the decorator form over a factory in the kernel syntax, and the tuned config
that tilec.compile then uses. Tiny shapes and one or two timed calls: nothing asserts a
time."""

import numpy as np
import pytest

import tilec
import tilec.language as T

SCALE = '''
import tilelang
import tilelang.language as T
from tilelang.autotuner import autotune


@autotune(configs=[{"block": b, "threads": 32} for b in [8, 16, 48]], warmup=0, rep=1)
@tilelang.jit(out_idx=[-1])
def scale(N=32, block=8, threads=32):
    assert N % block == 0, "block must divide N"

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // block, threads=threads) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = A[bx * block + i] * 2.0

    return main
'''


def test_autotune_a_file_ranks_configs_and_keeps_the_failing_one(tmp_path, capsys):
    path = tmp_path / "scale.py"
    path.write_text(SCALE)
    result = tilec.autotune(str(path), target="c", retune=True)
    assert len(result.table) == 3
    ranked = [row for row in result.table if "median_ms" in row]
    assert [row["status"] for row in ranked] == ["ok", "ok"]
    assert result.table[-1]["config"] == {"block": 48, "threads": 32}
    assert result.table[-1]["status"] == "compile error"
    assert "assertion failed" in result.table[-1]["error"]
    assert result.config in ({"block": 8, "threads": 32}, {"block": 16, "threads": 32})
    assert result.latency == ranked[0]["median_ms"]
    a = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(result.kernel(a), 2 * a)

    # tilec.compile of the same file now uses the stored best config, and says so.
    kernel = tilec.compile(str(path), target="c")
    assert "using the tuned config" in capsys.readouterr().err
    np.testing.assert_array_equal(kernel(a), 2 * a)


def test_autotune_decorator_over_a_factory():
    @tilec.autotune(configs=[{"block": 16}, {"block": 32}], warmup=0, rep=1, target="c", retune=True)
    def double(N=64, block=16):
        @T.prim_func
        def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
            with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
                for i in T.Parallel(block):
                    B[bx * block + i] = A[bx * block + i] * 2.0

        return main

    kernel = double(N=64)
    assert kernel.config in ({"block": 16}, {"block": 32})
    assert sorted(row["config"]["block"] for row in kernel.table) == [16, 32]
    a = np.arange(64, dtype=np.float32)
    b = np.zeros(64, np.float32)
    kernel(a, b)
    np.testing.assert_array_equal(b, 2 * a)


def test_autotune_without_configs_is_an_error(examples):
    with pytest.raises(tilec.EngineError, match="no autotune configs"):
        tilec.autotune(str(examples / "vector_add.py"), target="c")
