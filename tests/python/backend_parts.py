"""What the backend-layer tests share: a small kernel, fresh names and target kinds (the
registries are process-wide, so every test registers under names of its own), and a
manifest's components reused from the registered cpu backend."""

import itertools
import textwrap

from tilec.backend.host_codegen import resolve_host_codegen
from tilec.backend.module import get_backend
from tilec.backend.pass_pipeline import PassPipeline
from tilec.target import Target, register_target_kind

VECTOR_ADD = textwrap.dedent(
    """
    import tilelang.language as T
    N = 64
    @T.prim_func
    def add(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=1) as bx:
            for i in T.Parallel(N):
                B[i] = A[i] + 1.0
    """
)

_names = itertools.count()


def fresh(prefix):
    """A name no other test uses."""
    return f"{prefix}{next(_names)}"


def fresh_kind(prefix):
    """A new target kind (keys: cpu), registered."""
    kind = fresh(prefix)
    register_target_kind(kind, ["cpu"])
    return kind


def cpu_parts(kind):
    """A manifest's components reused from the registered cpu backend, under `kind`."""
    cpu = get_backend("cpu")
    return dict(
        target_kinds=(kind,),
        pipelines={kind: PassPipeline(kind, cpu.pipelines["c"].passes)},
        device_codegens={kind: cpu.device_codegens["c"]},
        execution_backends=cpu.execution_backends,
        host_codegens={"c": resolve_host_codegen(Target("c"))},
    )
