"""A backend registered from Python, end to end: its own target kind, the cpu backend's
passes, device codegen and `native` execution backend reused by name, and Python
callables as host codegen, hook and callback. tilec.compile runs them where the C++
layer calls them; the kernel runs and matches NumPy. A raising host codegen fails the
compilation like a C++ error and leaves registries and the kernel cache as they were."""

import itertools

import numpy as np
import pytest

import tilec
from tilec import _core
from tilec.backend.host_codegen import HostCodegen, HostCodegenHook, resolve_host_codegen
from tilec.backend.module import BackendModule, create_backend_context, get_backend, list_backends, register_backend
from tilec.backend.pass_pipeline import PassPipeline
from tilec.target import Target, register_target_kind

_names = itertools.count()
MARKER = "/* host code generated through a Python host codegen */"


def python_backend(kind, build, hooks=(), callbacks=None):
    cpu = get_backend("cpu")
    register_target_kind(kind, ["cpu"], description="a backend written in Python (tests)")
    module = BackendModule(
        name=f"py_{kind}",
        target_kinds=(kind,),
        pipelines={kind: PassPipeline(kind, cpu.pipelines["c"].passes)},
        device_codegens={kind: cpu.device_codegens["c"]},
        execution_backends=tuple(spec for spec in cpu.execution_backends if spec.name == "native"),
        host_codegens={"c": HostCodegen(f"py_{kind}_c", build=build)},
        host_codegen_hooks={kind: tuple(hooks)} if hooks else {},
        callbacks=callbacks or {},
    )
    return register_backend(module)


def test_python_backend_compiles_and_runs_a_kernel(examples):
    kind = f"pyback{next(_names)}"
    standard = resolve_host_codegen(Target("c"))
    built, hooked = [], []

    def build(mod, target_host):
        built.append(mod.attrs.get("py_hook_ran"))
        artifact = standard.lower(mod, target_host)
        return tilec.CodeArtifact(
            artifact.format,
            source=MARKER + "\n" + artifact.source,
            entry_points=artifact.entry_points,
            metadata=artifact.metadata,
        )

    def hook(mod, target_host, target):
        hooked.append(target.kind.name)
        return mod.with_attr("py_hook_ran", True)

    backend = python_backend(
        kind,
        build,
        hooks=[HostCodegenHook("py_hook", apply=hook)],
        callbacks={"describe": lambda: f"backend for {kind}"},
    )
    assert list_backends()[backend.name] == backend
    context = create_backend_context(kind, target_host="c")
    assert context.name == backend.name

    kernel = tilec.compile(examples / "vector_add.py", target=kind, target_host="c", N=300)
    assert kernel.context.name == backend.name
    assert kernel.host_source.startswith(MARKER)
    assert hooked == [kind] and built == [True]  # the hook ran before the host codegen
    a, b = np.random.rand(300).astype(np.float32), np.random.rand(300).astype(np.float32)
    c = np.zeros(300, np.float32)
    kernel(a, b, c)
    np.testing.assert_array_equal(c, a + b)
    assert _core.get_global_func(f"{backend.name}.describe")() == f"backend for {kind}"


def test_a_raising_python_host_codegen_fails_compilation_and_changes_nothing(examples):
    kind = f"pyfail{next(_names)}"
    attempts = []

    def build(mod, target_host):
        attempts.append(1)
        raise RuntimeError("host codegen exploded")

    backend = python_backend(kind, build)
    backends_before = set(list_backends())
    with pytest.raises(ValueError, match="build raised RuntimeError: host codegen exploded") as info:
        tilec.compile(examples / "vector_add.py", target=kind, target_host="c")
    assert "test_python_backend.py" in str(info.value)  # where it was raised
    assert set(list_backends()) == backends_before
    assert get_backend(backend.name) == backend
    # Nothing was cached for the failed build: compiling again runs the codegen again.
    with pytest.raises(ValueError, match="host codegen exploded"):
        tilec.compile(examples / "vector_add.py", target=kind, target_host="c")
    assert len(attempts) == 2
    # Other backends are unaffected.
    assert tilec.compile(examples / "vector_add.py", target="c").context.name == "cpu"


def test_a_failed_python_registration_leaves_no_trace():
    kind = f"pyhalf{next(_names)}"
    register_target_kind(kind, ["cpu"])
    cpu = get_backend("cpu")
    # A host codegen named like the standard `c` one but with another function is refused,
    # and so is the whole manifest: none of its components appear anywhere.
    before_codegens = dict(_core.list_host_codegens())
    before_funcs = set(_core.list_global_funcs())
    module = BackendModule(
        name=f"py_{kind}",
        target_kinds=(kind,),
        pipelines={kind: PassPipeline(kind, cpu.pipelines["c"].passes)},
        device_codegens={kind: cpu.device_codegens["c"]},
        execution_backends=cpu.execution_backends,
        host_codegens={"c": HostCodegen("c", build=lambda mod, host: None)},
        callbacks={"cb": lambda: 1},
    )
    with pytest.raises(ValueError, match="'c'"):
        register_backend(module)
    assert f"py_{kind}" not in list_backends()
    assert dict(_core.list_host_codegens()) == before_codegens
    assert set(_core.list_global_funcs()) == before_funcs
