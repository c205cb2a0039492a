"""Kernels from Python: compiled from files, source strings and Python functions, run
on NumPy arrays and DLPack objects, checked against NumPy references; bad input."""

import threading
import time

import numpy as np
import pytest

import kernels_in_python as kp
import tilec
from tilec.backend.module import BackendContext

rng = np.random.default_rng(7)
CPU = "c"  # the tests pin the cpu backend's target: `auto` may pick another CPU target


def runnable_targets():
    """Every (target kind, execution backend) of the registered backends that runs here."""
    combos = []
    for backend in tilec.backend.list_backends().values():
        for kind in backend.target_kinds:
            if kind not in ("c", "llvm"):
                continue  # kernels of other kinds do not run on this CPU
            target = tilec.target.Target(kind)
            if not backend.matches(target):
                continue
            for execution in backend.allowed_execution_backends(target, include_unavailable=False):
                combos.append(pytest.param(kind, execution, id=f"{kind}-{execution}"))
    return combos


@pytest.mark.parametrize("target, execution_backend", runnable_targets())
def test_vector_add_file_with_define(examples, target, execution_backend):
    kernel = tilec.compile(str(examples / "vector_add.py"), target=target, execution_backend=execution_backend, N=1000)
    assert kernel.execution_backend == execution_backend
    a, b = rng.random(1000, dtype=np.float32), rng.random(1000, dtype=np.float32)
    c = np.zeros(1000, np.float32)
    kernel(a, b, c)
    np.testing.assert_array_equal(c, a + b)


@pytest.mark.parametrize("target, execution_backend", runnable_targets())
def test_gemm_fp16_file_against_numpy(examples, target, execution_backend):
    kernel = tilec.compile(examples / "gemm.py", target=target, execution_backend=execution_backend, M=96, N=80, K=72)
    a = rng.standard_normal((96, 72)).astype(np.float16)
    b = rng.standard_normal((72, 80)).astype(np.float16)
    c = np.empty((96, 80), np.float16)
    kernel(a, b, c)
    reference = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), reference, rtol=1e-2, atol=5e-2)


def test_kernel_exposes_lowered_sources_context_and_cache_hit(examples):
    first = tilec.compile(examples / "softmax.py", target=CPU)
    again = tilec.compile(examples / "softmax.py", target=CPU)
    assert again.cache_hit
    assert "T.prim_func" in first.lowered or "def " in first.lowered
    assert first.host_source and first.device_source
    assert isinstance(first.context, BackendContext)
    assert first.context.name == "cpu"
    assert first.context.target.kind.name == "c"
    assert first.execution_backend == "native"


SCALE_SOURCE = """
import tilelang.language as T

N = T.symbolic("N")


@T.prim_func
def scale(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), alpha: T.float32):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < N:
                B[bx * 64 + i] = A[bx * 64 + i] * alpha


@T.prim_func
def negate(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < N:
                B[bx * 64 + i] = -A[bx * 64 + i]
"""


def test_source_string_with_symbolic_dims_a_scalar_and_two_functions():
    kernel = tilec.compile(SCALE_SOURCE, target=CPU)
    assert kernel.function_names == ["scale", "negate"]
    a = rng.random(100, dtype=np.float32)
    b = np.zeros(100, np.float32)
    kernel.call("scale", a, b, 2.5)
    np.testing.assert_allclose(b, a * np.float32(2.5), rtol=1e-6)
    kernel.call("scale", a, b, np.float32(0.5))  # a NumPy scalar is a scalar argument
    np.testing.assert_allclose(b, a * np.float32(0.5), rtol=1e-6)
    kernel.call("negate", a, b)
    np.testing.assert_array_equal(b, -a)
    with pytest.raises(ValueError, match="scale, negate"):
        kernel(a, b)


@pytest.mark.parametrize("target, execution_backend", runnable_targets())
def test_function_kernel_with_module_constants_and_symbolic_dims(target, execution_backend):
    kernel = tilec.compile(kp.vadd, target=target, execution_backend=execution_backend)
    for n in (1, 33, 200):
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        c = np.zeros(n, np.float32)
        kernel(a, b, c)
        np.testing.assert_array_equal(c, a + b)


def test_function_kernel_closing_over_a_constant():
    kernel = tilec.compile(kp.make_offset_kernel(3.5), target=CPU)
    a = rng.random(16, dtype=np.float32)
    b = np.zeros(16, np.float32)
    kernel(a, b)
    np.testing.assert_allclose(b, a + np.float32(3.5))


def test_runnable_targets_include_the_c_target():
    assert ("c", "native") in [tuple(p.values) for p in runnable_targets()]


def test_jit_out_idx_allocates_and_returns_the_output():
    a = rng.standard_normal((kp.M_GEMM, kp.K_GEMM)).astype(np.float32)
    b = rng.standard_normal((kp.K_GEMM, kp.N_GEMM)).astype(np.float32)
    c = kp.gemm(a, b)
    assert c.shape == (kp.M_GEMM, kp.N_GEMM) and c.dtype == np.float32
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="takes 2 inputs"):
        kp.gemm(a)


def test_jit_out_idx_binds_symbolic_output_shapes():
    kernel = tilec.jit(kp.vadd, out_idx=-1, target=CPU)
    a, b = rng.random(70, dtype=np.float32), rng.random(70, dtype=np.float32)
    np.testing.assert_array_equal(kernel(a, b), a + b)


EAGER_SCALE = """
import tilelang
import tilelang.language as T


@tilelang.jit
def scale(X, factor=2.0, block=8):
    M, N = T.const("M, N")
    X: T.Tensor((M, N), "float32")
    Y = T.empty((M, N), "float32")
    with T.Kernel(T.ceildiv(M, block)) as bx:
        for i, j in T.Parallel(block, N):
            Y[bx * block + i, j] = X[bx * block + i, j] * factor
    return Y
"""

FACTORY_COPY = """
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def copy_rows(M, N, block_M=8):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M)) as bx:
            rows = T.alloc_shared((block_M, N), "float32")
            T.copy(A[bx * block_M, 0], rows)
            T.copy(rows, B[bx * block_M, 0])

    return main
"""


def test_declared_outputs_of_eager_jit_and_factories_are_allocated_and_returned():
    kernel = tilec.compile(EAGER_SCALE, target=CPU, block=4)
    x = rng.random((12, 5), dtype=np.float32)
    y = kernel(x)  # T.empty's output is allocated, shaped from X, and returned
    assert y.shape == (12, 5) and y.dtype == np.float32
    np.testing.assert_allclose(y, x * 2.0, rtol=1e-6)
    factory = tilec.compile(FACTORY_COPY, target=CPU, M=20, N=3)
    a = rng.random((20, 3), dtype=np.float32)
    np.testing.assert_array_equal(factory(a), a)  # out_idx=[-1]
    with pytest.raises(ValueError, match="takes 1 inputs"):
        factory(a, a)


def test_factory_called_with_its_parameters_returns_the_compiled_kernel():
    # TileLang's factory form: calling it with sizes gives the kernel for those sizes.
    kernel = kp.matmul_factory(64, 48, 32, block_N=16)
    assert isinstance(kernel, tilec.Kernel)
    assert kp.matmul_factory(64, 48, 32, block_N=16) is kernel  # one kernel per argument set
    a = rng.random((64, 32), dtype=np.float32)
    b = rng.random((32, 48), dtype=np.float32)
    c = kernel(a, b)  # out_idx=[-1]: C is allocated and returned (the kernel clears it)
    assert c.shape == (64, 48)
    np.testing.assert_array_equal(c, np.zeros((64, 48), np.float32))
    with pytest.raises(TypeError, match="factory 'matmul_factory'.*missing"):
        kp.matmul_factory(64)


def test_source_errors_point_at_the_python_file_and_line():
    with pytest.raises(tilec.KernelSourceError, match="no_such_op") as info:
        tilec.compile(kp.broken, target=CPU)
    line = next(i for i, text in enumerate(open(kp.__file__), 1) if "T.no_such_op" in text)
    assert f"kernels_in_python.py:{line}:" in str(info.value)


def test_unknown_define_lists_the_constants(examples):
    with pytest.raises(ValueError, match="block_N"):
        tilec.compile(examples / "vector_add.py", target=CPU, NO_SUCH=3)


def test_missing_kernel_file_and_wrong_kernel_type():
    with pytest.raises(FileNotFoundError):
        tilec.compile("no/such/kernel.py")
    with pytest.raises(TypeError, match="kernel file path"):
        tilec.compile(42)


def test_a_path_looking_argument_is_a_path_never_kernel_source(examples, tmp_path, monkeypatch):
    monkeypatch.chdir(examples.parent)
    # A mistyped path: "no such file", with the .py file meant when there is one.
    with pytest.raises(FileNotFoundError, match=r"no such file.*'examples/gemm'.*did you mean 'examples/gemm.py'"):
        tilec.compile("examples/gemm", target=CPU)
    with pytest.raises(FileNotFoundError, match="no such file"):
        tilec.compile("examples/no_such_kernel", target=CPU)
    with pytest.raises(FileNotFoundError, match="no such file"):
        tilec.parse(tmp_path / "missing.py")
    # A directory, given as text or as a path: says so and lists its kernel files.
    for directory in ("examples", examples):
        with pytest.raises(IsADirectoryError, match=r"is a directory, not a kernel file.*gemm\.py"):
            tilec.compile(directory, target=CPU)
    with pytest.raises(IsADirectoryError, match="holds no .py files"):
        tilec.compile(str(tmp_path), target=CPU)


@pytest.mark.parametrize("target, execution_backend", runnable_targets())
def test_argument_count_error_names_the_kernel_once_and_lists_the_parameters(examples, target, execution_backend):
    kernel = tilec.compile(examples / "vector_add.py", target=target, execution_backend=execution_backend, N=64)
    a = np.zeros(64, np.float32)
    with pytest.raises(tilec.KernelError) as info:
        kernel(a)
    message = str(info.value)
    assert message.count("vector_add") == 1, message
    assert "expects 3 argument(s) (A, B, C), got 1" in message, message


class DLPackOnly:
    """An object that offers only the DLPack protocol (as torch tensors and others do)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None, **kwargs):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_round_trip(examples):
    kernel = tilec.compile(examples / "vector_add.py", target=CPU, N=256)
    a, b = rng.random(256, dtype=np.float32), rng.random(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    kernel(DLPackOnly(a), DLPackOnly(b), DLPackOnly(out))
    result = np.from_dlpack(DLPackOnly(out))
    np.testing.assert_array_equal(result, a + b)
    assert np.shares_memory(result, out)


def test_torch_tensors_when_torch_is_installed(examples):
    torch = pytest.importorskip("torch", reason="torch is not installed here")
    kernel = tilec.compile(examples / "vector_add.py", target=CPU, N=64)
    a, b, c = torch.rand(64), torch.rand(64), torch.zeros(64)
    kernel(a, b, c)
    assert torch.equal(c, a + b)


@pytest.fixture(scope="module")
def vadd_kernel(examples=None):
    from conftest import EXAMPLES

    return tilec.compile(EXAMPLES / "vector_add.py", target=CPU, N=64)


def test_wrong_dtype_is_reported_by_the_entry(vadd_kernel):
    a = np.zeros(64, np.float64)
    with pytest.raises(tilec.KernelError, match="float32") as info:
        vadd_kernel(a, a, a)
    assert "A" in str(info.value)


def test_wrong_shape_is_reported_by_the_entry(vadd_kernel):
    a, small = np.zeros(64, np.float32), np.zeros(63, np.float32)
    with pytest.raises(tilec.KernelError, match="63|64"):
        vadd_kernel(a, small, a)


def test_non_contiguous_array_is_reported(vadd_kernel):
    a = np.zeros(128, np.float32)[::2]
    b = np.zeros(64, np.float32)
    with pytest.raises(tilec.KernelError, match="contiguous|stride"):
        vadd_kernel(a, b, b)


def test_read_only_array_only_for_a_read_only_parameter(vadd_kernel):
    a = np.zeros(64, np.float32)
    frozen = np.zeros(64, np.float32)
    frozen.setflags(write=False)
    with pytest.raises(ValueError, match=r"argument 2 \('C'\) .* is a read-only array"):
        vadd_kernel(a, a, frozen)
    kernel = tilec.compile(READ_ONLY_SOURCE, target=CPU)
    out = np.zeros(64, np.float32)
    kernel(frozen, out)  # A is declared read_only: a read-only array is fine there
    np.testing.assert_array_equal(out, frozen + 1)


READ_ONLY_SOURCE = """
import tilelang.language as T


@T.prim_func
def add_one(A: T.Tensor((64,), "float32", read_only=True), B: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(64):
            B[i] = A[i] + 1.0
"""


def test_wrong_argument_count_and_kind(vadd_kernel):
    a = np.zeros(64, np.float32)
    with pytest.raises(ValueError, match="3|argument"):
        vadd_kernel(a, a)
    with pytest.raises(TypeError, match=r"argument 1 \('B'\)"):
        vadd_kernel(a, [0.0] * 64, a)


def test_gil_is_released_while_the_kernel_runs(examples):
    # While a worker thread is inside kernel calls, this thread keeps taking turns at Python
    # code, recording the time of each. Were the GIL held for a call, at most one turn could
    # fall inside it (one taken between the worker's clock read and its entering the call);
    # released, this thread takes turns throughout. Counting turns, not timing them, keeps
    # the test sound on a loaded machine.
    size = 1024
    kernel = tilec.compile(examples / "gemm_fp32.py", target=CPU, M=size, N=size, K=size)
    a = rng.random((size, size), dtype=np.float32)
    b = rng.random((size, size), dtype=np.float32)
    c = np.empty((size, size), np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-2)
    calls = []

    def run():
        for _ in range(8):
            start = time.perf_counter()
            kernel(a, b, c)
            calls.append((start, time.perf_counter()))

    turns = []
    worker = threading.Thread(target=run)
    worker.start()
    while worker.is_alive():
        turns.append(time.perf_counter())
        time.sleep(0.0002)
    worker.join()
    inside = sum(1 for t in turns if any(start < t < end for start, end in calls))
    busy_ms = sum(end - start for start, end in calls) * 1e3
    if busy_ms < 4 * len(calls):
        pytest.skip(f"{len(calls)} calls take {busy_ms:.1f} ms here, too short to watch another thread run")
    assert inside >= len(calls) + 2, (
        f"only {inside} of this thread's {len(turns)} turns fell inside {len(calls)} kernel "
        f"calls ({busy_ms:.1f} ms in all): the GIL was held"
    )


GATHER_SOURCE = '''import tilelang.language as T


@T.prim_func
def gather(X: T.Tensor((64,), "float32"), I: T.Tensor((64,), "int32"), Y: T.Tensor((64,), "float32")):
    with T.Kernel(4, threads=16) as bx:
        for i in T.Parallel(16):
            Y[bx * 16 + i] = X[I[bx * 16 + i]]
'''


@pytest.mark.parametrize("target, execution_backend", runnable_targets())
def test_bounds_check_pass_config_raises_a_clear_error(target, execution_backend):
    kernel = tilec.compile(
        GATHER_SOURCE, target=target, execution_backend=execution_backend, pass_configs={"tilec.bounds_check": True}
    )
    x = np.arange(64, dtype=np.float32)
    index = np.arange(64, dtype=np.int32)[::-1].copy()
    y = np.zeros(64, np.float32)
    kernel(x, index, y)
    np.testing.assert_array_equal(y, x[index])
    index[40] = 64
    with pytest.raises(tilec.KernelError, match=r"line 8:.*load 'X' at index \[64\] is outside its shape \[64\]"):
        kernel(x, index, y)


def test_bounds_check_is_refused_where_the_target_cannot_check():
    # opencl's codegen prints no bounds calls (cuda's does, and runs them on the emulator).
    with pytest.raises(tilec.EngineError, match="bounds checking is not supported on target 'opencl"):
        tilec.compile(
            GATHER_SOURCE, target="opencl", execution_backend="opencl", pass_configs={"tilec.bounds_check": True}
        )
