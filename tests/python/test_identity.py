"""Identity from Python, as the reference has it: a component registered again is the same
only when it holds the very same callable objects (two closures of one factory are
different functions, refused unless override=True, which replaces); and what the
registries hand out is the same Python object for the same registered object."""

import pytest

import tilec
from tilec.backend import host_codegen as hc
from tilec.backend.execution_backend import ExecutionBackendSpec
from tilec.backend.module import (
    BackendContext,
    BackendModule,
    create_backend_context,
    get_backend,
    list_backends,
    register_backend,
)
from tilec.target import Target

from backend_parts import VECTOR_ADD, cpu_parts, fresh, fresh_kind


def make_codegen(name, text):
    """What a backend author writes: a factory whose closure captures its argument."""

    def build(mod, target_host):
        return tilec.CodeArtifact("c", source=text)

    return hc.HostCodegen(name, build=build)


def make_hook(name, text):
    def apply(mod, target_host, target):
        return mod.with_attr("hook", text)

    return hc.HostCodegenHook(name, apply=apply)


def resolved_source(kind):
    return hc.resolve_host_codegen(Target(kind)).lower(tilec.parse(VECTOR_ADD), Target(kind)).source


def test_another_closure_of_one_factory_is_refused_without_override():
    kind = fresh_kind("idfactory")
    first = hc.register_host_codegen(kind, make_codegen("one", "v1"))
    with pytest.raises(ValueError, match="'one' is already registered for kind '.*' with a different function"):
        hc.register_host_codegen(kind, make_codegen("one", "v2"))
    with pytest.raises(ValueError, match="different function"):
        hc.register_host_codegen(kind, make_codegen("one", "v1"))  # equal captures, another object
    assert resolved_source(kind) == "v1"
    assert hc.resolve_host_codegen(Target(kind)) is first


def test_another_closure_of_one_factory_replaces_with_override():
    kind = fresh_kind("idoverride")
    hc.register_host_codegen(kind, make_codegen("one", "v1"))
    replacement = make_codegen("one", "v2")
    assert hc.register_host_codegen(kind, replacement, override=True) is replacement
    assert resolved_source(kind) == "v2"
    assert hc.resolve_host_codegen(Target(kind)) is replacement
    assert hc.allowed_host_codegens_for_target(Target(kind)) == ["one"]


def test_the_same_objects_again_are_the_registered_entry():
    kind = fresh_kind("idsame")
    codegen = make_codegen("same", "text")
    assert hc.register_host_codegen(kind, codegen) is codegen
    assert hc.register_host_codegen(kind, codegen) is codegen
    # Another HostCodegen holding the very same function object is the same entry.
    again = hc.HostCodegen("same", build=codegen.build)
    assert hc.register_host_codegen(kind, again) is codegen
    assert hc.resolve_host_codegen(Target(kind)) is hc.resolve_host_codegen(Target(kind)) is codegen


def test_hooks_follow_the_same_rule():
    kind = fresh_kind("idhook")
    hook = make_hook("tag", "v1")
    assert hc.register_host_codegen_hook(kind, hook) is hook
    assert hc.register_host_codegen_hook(kind, hook) is hook
    with pytest.raises(ValueError, match="hook 'tag' is already registered for kind '.*' with a different function"):
        hc.register_host_codegen_hook(kind, make_hook("tag", "v2"))
    mod = tilec.parse(VECTOR_ADD)
    assert hc.apply_host_codegen_hooks(mod, Target("c"), Target(kind)).attrs["hook"] == "v1"
    hc.register_host_codegen_hook(kind, make_hook("tag", "v2"), override=True)
    assert hc.apply_host_codegen_hooks(mod, Target("c"), Target(kind)).attrs["hook"] == "v2"


def test_the_registries_hand_out_one_python_object_per_registered_object():
    cpu = get_backend("cpu")
    assert get_backend("cpu") is cpu
    assert list_backends()["cpu"] is cpu
    context = create_backend_context("c")
    assert context.module is cpu
    assert context.execution_backend in cpu.execution_backends
    assert any(spec is context.execution_backend for spec in cpu.execution_backends)
    assert cpu.execution_backends[0] is get_backend("cpu").execution_backends[0]
    assert cpu.device_codegens["c"] is get_backend("cpu").device_codegens["c"]
    # The standard `c` host codegen: one object, however it is reached.
    assert cpu.host_codegens["c"] is hc.resolve_host_codegen(Target("c"))
    assert cpu.host_codegens["c"].build is hc.resolve_host_codegen("c").build


def test_a_cpp_function_handed_to_python_is_that_function_again():
    kind = fresh_kind("idcpp")
    standard = hc.resolve_host_codegen(Target("c"))
    reused = hc.HostCodegen("c", build=standard.build)
    assert hc.register_host_codegen("c", reused) is standard  # the same C++ callable: a no-op
    assert hc.register_host_codegen(kind, reused).build is standard.build
    lowered = create_backend_context("c", target_host="c").lower(tilec.parse(VECTOR_ADD))
    source = hc.resolve_host_codegen(Target(kind)).lower(lowered, Target(kind)).source
    assert source.startswith("/* Host entries generated by tilec")


def test_register_backend_hands_back_the_manifest_and_keeps_it():
    kind = fresh_kind("idbackend")
    name = fresh("idbackend")
    predicate = lambda target: True  # noqa: E731
    manifest = BackendModule(name=name, supports_target=predicate, **cpu_parts(kind))
    assert register_backend(manifest) is manifest
    assert register_backend(manifest) is manifest
    assert get_backend(name) is manifest
    assert list_backends()[name] is manifest
    context = create_backend_context(kind)
    assert context.module is manifest is get_backend(context.name)
    # Equal declarations (the same component objects) are the registered manifest.
    equal = BackendModule(name=name, supports_target=predicate, **cpu_parts(kind))
    assert register_backend(equal) is manifest
    # Another closure is a different declaration, and changes nothing.
    other = BackendModule(name=name, supports_target=lambda target: True, **cpu_parts(kind))
    with pytest.raises(ValueError, match="different declaration.*supports_target"):
        register_backend(other)
    assert get_backend(name) is manifest


def test_a_context_made_from_an_unregistered_manifest_has_that_manifest_as_its_module():
    kind = fresh_kind("idctx")
    manifest = BackendModule(name=fresh("idctx"), **cpu_parts(kind))
    spec = next(spec for spec in manifest.execution_backends if spec.name == "native")
    context = BackendContext(manifest, Target(kind), Target("c"), spec)
    assert context.module is manifest
    assert context.execution_backend is spec


def test_execution_backend_specs_made_apart_are_different_callables():
    kind = fresh_kind("idspec")
    parts = cpu_parts(kind)

    def availability(answer):
        return lambda: answer

    parts["execution_backends"] = (ExecutionBackendSpec("native", is_available=availability(True), enable_device_compile=False),)
    name = fresh("idspec")
    registered = register_backend(BackendModule(name=name, **parts))
    parts["execution_backends"] = (ExecutionBackendSpec("native", is_available=availability(True), enable_device_compile=False),)
    with pytest.raises(ValueError, match="different function for execution backend 'native'"):
        register_backend(BackendModule(name=name, **parts))
    assert get_backend(name) is registered
