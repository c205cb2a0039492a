"""tilec.backend.module from Python: the seed's registration, validation, immutable
contexts, predicate-selected variants and execution-backend errors, over the C++ layer."""

import pytest

import tilec
from tilec.backend.execution_backend import ExecutionBackendSpec
from tilec.backend.host_codegen import HostCodegen, resolve_host_codegen
from tilec.backend.module import (
    BackendContext,
    BackendModule,
    create_backend_context,
    get_backend,
    list_backends,
    register_backend,
)
from tilec.target import Target, register_target_kind

from backend_parts import cpu_parts, fresh


def test_list_backends_is_a_name_to_module_mapping_copy():
    backends = list_backends()
    assert isinstance(backends, dict)
    assert backends["cpu"].name == "cpu"
    assert "c" in backends["cpu"].target_kinds
    backends.clear()
    assert "cpu" in list_backends()


def test_get_backend_unknown_name_is_a_value_error_listing_the_registered():
    with pytest.raises(ValueError, match="cpu") as info:
        get_backend("no_such_backend")
    assert isinstance(info.value, tilec.BackendError)


def test_create_backend_context_resolves_target_host_and_execution_backend():
    context = create_backend_context("c")
    assert isinstance(context, BackendContext)
    assert context.name == "cpu"
    assert context.target.kind.name == "c"
    assert context.execution_backend.name == "native"
    assert context.target_host.kind.name in ("c", "llvm")
    explicit = create_backend_context(target=Target("c"), target_host="c", execution_backend="native")
    assert explicit.target_host == Target("c")
    assert explicit.module == get_backend("cpu")


def test_context_is_immutable():
    context = create_backend_context("c")
    for field in ("module", "target", "target_host", "execution_backend", "name"):
        with pytest.raises(AttributeError):
            setattr(context, field, None)


def test_execution_backend_errors_name_the_allowed_ones_and_suggest_auto():
    with pytest.raises(ValueError, match="native") as info:
        create_backend_context("c", execution_backend="nvrtc")
    assert "auto" in str(info.value)


def test_unknown_target_kind_is_a_target_error():
    with pytest.raises(ValueError, match="no_such_kind") as info:
        create_backend_context("no_such_kind")
    assert isinstance(info.value, tilec.TargetError)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(name=""), "name"),
        (dict(target_kinds=()), "target kind"),
        (dict(pipelines={}), "pipeline"),
        (dict(device_codegens={}), "device codegen"),
        (dict(execution_backends=()), "execution backend"),
        (dict(host_codegens={}), "host codegen"),
    ],
)
def test_manifest_is_validated_when_it_is_made(change, message):
    kind = fresh("pyval")
    register_target_kind(kind, ["cpu"])
    fields = dict(name=fresh("pyval_backend"), **cpu_parts(kind))
    fields.update(change)
    with pytest.raises(ValueError, match=message):
        BackendModule(**fields)


def test_manifest_fields_of_the_wrong_type_are_type_errors():
    kind = fresh("pytype")
    register_target_kind(kind, ["cpu"])
    fields = dict(name=fresh("pytype_backend"), **cpu_parts(kind))
    fields["pipelines"] = {kind: "not a pipeline"}
    with pytest.raises(TypeError, match="pipelines"):
        BackendModule(**fields)


def test_registration_is_honest_same_declaration_is_a_no_op_different_one_an_error():
    kind = fresh("pyreg")
    register_target_kind(kind, ["cpu"])
    name = fresh("pyreg_backend")
    predicate = lambda target: True  # noqa: E731
    module = BackendModule(name=name, supports_target=predicate, **cpu_parts(kind))
    registered = register_backend(module)
    # As the reference: the manifest itself is registered and handed back.
    assert registered is module and module.is_registered()
    assert register_backend(module) is registered
    assert get_backend(name) is registered
    before = set(list_backends())
    other = BackendModule(name=name, supports_target=lambda target: True, **cpu_parts(kind))
    with pytest.raises(ValueError, match="different declaration"):
        register_backend(other)
    assert set(list_backends()) == before
    assert get_backend(name).supports_target is predicate


def test_predicate_selected_variants_share_a_target_kind():
    kind = fresh("pyvariant")
    register_target_kind(kind, ["cpu"])
    fast = register_backend(
        BackendModule(name=fresh("fast"), supports_target=lambda t: t.has_key("fast"), **cpu_parts(kind))
    )
    slow = register_backend(
        BackendModule(name=fresh("slow"), supports_target=lambda t: not t.has_key("fast"), **cpu_parts(kind))
    )
    assert create_backend_context(f"{kind} -keys=fast,cpu").name == fast.name
    assert create_backend_context(kind).name == slow.name


def test_sharing_a_kind_needs_predicates():
    kind = fresh("pyshared")
    register_target_kind(kind, ["cpu"])
    register_backend(BackendModule(name=fresh("first"), **cpu_parts(kind)))
    before = set(list_backends())
    with pytest.raises(ValueError, match="supports_target"):
        register_backend(BackendModule(name=fresh("second"), supports_target=lambda t: True, **cpu_parts(kind)))
    assert set(list_backends()) == before


def test_unavailable_execution_backend_is_reported():
    kind = fresh("pyexec")
    register_target_kind(kind, ["cpu"])
    parts = cpu_parts(kind)
    parts["execution_backends"] = (ExecutionBackendSpec("native", is_available=lambda: False, enable_device_compile=False),)
    register_backend(BackendModule(name=fresh("pyexec_backend"), **parts))
    with pytest.raises(ValueError, match="not available"):
        create_backend_context(kind, execution_backend="native")
    with pytest.raises(ValueError, match="available"):
        create_backend_context(kind)


def test_a_raising_predicate_fails_resolution_like_a_cpp_error():
    kind = fresh("pyraise")
    register_target_kind(kind, ["cpu"])

    def predicate(target):
        raise RuntimeError("predicate exploded")

    register_backend(BackendModule(name=fresh("pyraise_backend"), supports_target=predicate, **cpu_parts(kind)))
    with pytest.raises(ValueError, match="supports_target raised RuntimeError: predicate exploded"):
        create_backend_context(kind)
    assert create_backend_context("c").name == "cpu"


def test_a_predicate_returning_a_non_bool_names_the_callable():
    kind = fresh("pybadresult")
    register_target_kind(kind, ["cpu"])
    register_backend(BackendModule(name=fresh("pybad"), supports_target=lambda t: "yes", **cpu_parts(kind)))
    with pytest.raises(ValueError, match="supports_target returned str"):
        create_backend_context(kind)


def test_host_codegen_built_from_python_is_callable_from_context():
    kind = fresh("pyctx")
    register_target_kind(kind, ["cpu"])
    calls = []
    standard = resolve_host_codegen(Target("c"))

    def build(mod, target_host):
        calls.append(str(target_host))
        return standard.lower(mod, target_host)

    parts = cpu_parts(kind)
    parts["host_codegens"] = {"c": HostCodegen(fresh("pyctx_c"), build=build, supports_target=lambda t: True)}
    register_backend(BackendModule(name=fresh("pyctx_backend"), **parts))
    context = create_backend_context(kind, target_host="c")
    assert context.module.host_codegens["c"].build is build
