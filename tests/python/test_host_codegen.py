"""tilec.backend.host_codegen from Python: the registry, hooks, global-function codegens
and lazy registration by Python import path (once from many threads, undone and
retried when the import raises) and by plugin path."""

import sys
import textwrap
import threading

import pytest

import tilec
from tilec import _core
from tilec.backend import host_codegen as hc
from tilec.target import Target

from backend_parts import VECTOR_ADD, fresh, fresh_kind


def standard_c():
    return hc.resolve_host_codegen(Target("c"))


def test_standard_c_host_codegen_is_registered_and_resolves():
    assert "c" in hc.allowed_host_codegens_for_target(Target("c"))
    codegen = hc.resolve_host_codegen("c")
    assert codegen.name == "c"
    assert codegen.matches(Target("c"))


def test_resolving_an_unregistered_host_kind_lists_the_registered():
    kind = fresh_kind("pynohost")
    with pytest.raises(ValueError, match="c"):
        hc.resolve_host_codegen(Target(kind))


def test_register_python_host_codegen_same_again_is_a_no_op_different_is_an_error():
    kind = fresh_kind("pyhost")
    build = lambda mod, host: standard_c().lower(mod, host)  # noqa: E731
    codegen = hc.HostCodegen("py", build=build)
    assert hc.register_host_codegen(kind, codegen).name == "py"
    assert hc.register_host_codegen(kind, codegen).name == "py"
    with pytest.raises(ValueError, match="override"):
        hc.register_host_codegen(kind, hc.HostCodegen("py", build=lambda mod, host: None))
    assert hc.resolve_host_codegen(Target(kind)).build is build
    replacement = lambda mod, host: standard_c().lower(mod, host)  # noqa: E731
    hc.register_host_codegen(kind, hc.HostCodegen("py", build=replacement), override=True)
    assert hc.resolve_host_codegen(Target(kind)).build is replacement
    assert hc.allowed_host_codegens_for_target(Target(kind)) == ["py"]


def test_first_matching_codegen_wins_by_predicate():
    kind = fresh_kind("pypick")
    hc.register_host_codegen(kind, hc.HostCodegen("never", build=lambda m, h: None, supports_target=lambda t: False))
    hc.register_host_codegen(kind, hc.HostCodegen("always", build=lambda m, h: None))
    assert hc.allowed_host_codegens_for_target(Target(kind)) == ["always"]
    assert hc.resolve_host_codegen(Target(kind)).name == "always"


def test_host_codegen_must_be_callable_and_return_an_artifact():
    with pytest.raises(TypeError, match="callable"):
        hc.HostCodegen("bad", build=42)
    kind = fresh_kind("pyret")
    hc.register_host_codegen(kind, hc.HostCodegen("wrong", build=lambda mod, host: 42))
    mod = _core.parse_kernel_source(VECTOR_ADD)
    with pytest.raises(ValueError, match="returned int; it must return a tilec CodeArtifact"):
        hc.resolve_host_codegen(Target(kind)).lower(mod, Target(kind))


def test_hooks_run_in_registration_order_for_matching_targets():
    kind = fresh_kind("pyhook")
    seen = []

    def hook(name):
        def apply(mod, target_host, target):
            seen.append((name, str(target_host), target.kind.name))
            return mod.with_attr(name, True)

        return apply

    hc.register_host_codegen_hook(kind, hc.HostCodegenHook("first", apply=hook("first")))
    hc.register_host_codegen_hook(kind, hc.HostCodegenHook("second", apply=hook("second")))
    hc.register_host_codegen_hook(
        kind, hc.HostCodegenHook("skipped", apply=hook("skipped"), supports_target=lambda t: t.has_key("never"))
    )
    mod = _core.parse_kernel_source(VECTOR_ADD)
    out = hc.apply_host_codegen_hooks(mod, Target("c"), Target(kind))
    assert [name for name, _, _ in seen] == ["first", "second"]
    assert out.attrs["first"] is True and out.attrs["second"] is True
    assert "first" not in mod.attrs  # modules are immutable
    assert hc.apply_host_codegen_hooks(mod, Target("c"), None).attrs == mod.attrs


def test_a_raising_hook_fails_like_a_cpp_failure():
    kind = fresh_kind("pyhookraise")

    def apply(mod, target_host, target):
        raise KeyError("hook exploded")

    hc.register_host_codegen_hook(kind, hc.HostCodegenHook("raises", apply=apply))
    mod = _core.parse_kernel_source(VECTOR_ADD)
    with pytest.raises(ValueError, match="hook 'raises' apply raised KeyError: 'hook exploded'"):
        hc.apply_host_codegen_hooks(mod, Target("c"), Target(kind))


def test_global_func_host_codegen_calls_the_named_function():
    kind = fresh_kind("pyglobal")
    name = fresh("test.pyglobal")
    calls = []

    def build(mod, host):
        calls.append((mod.function_names, str(host)))
        return tilec.CodeArtifact("c", source="// built by a global function", entry_points=["add"])

    _core.register_global_func(name, build)
    hc.register_host_codegen(kind, hc.HostCodegen("global", build=hc.global_func_host_codegen(name)))
    mod = _core.parse_kernel_source(VECTOR_ADD)
    artifact = hc.resolve_host_codegen(Target(kind)).lower(mod, Target(kind))
    assert artifact.source == "// built by a global function"
    assert artifact.entry_points == ["add"]
    assert calls == [(["add"], str(Target(kind)))]
    missing = hc.global_func_host_codegen("test.no_such_function")
    with pytest.raises(ValueError, match="test.no_such_function"):
        missing(mod, Target("c"))


def write_module(tmp_path, name, body):
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    if str(tmp_path) not in sys.path:
        sys.path.insert(0, str(tmp_path))


def test_lazy_python_import_loads_once_from_many_threads(tmp_path):
    kind = fresh_kind("pylazy")
    module = fresh("tilec_test_lazy")
    write_module(
        tmp_path,
        module,
        f"""
        import time
        from tilec.backend import host_codegen as hc
        LOADS = globals().get("LOADS", 0) + 1
        time.sleep(0.05)  # a slow import, so the threads really wait on it together
        hc.register_host_codegen("{kind}", hc.HostCodegen("lazy", build=lambda m, h: None))
        """,
    )
    hc.register_lazy_host_codegen(kind, module)
    assert module not in sys.modules
    results, errors = [], []
    barrier = threading.Barrier(8)

    def resolve():
        barrier.wait()
        try:
            results.append(hc.resolve_host_codegen(Target(kind)).name)
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=resolve) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results == ["lazy"] * 8
    assert sys.modules[module].LOADS == 1
    assert _core.is_module_loaded(module)


def test_lazy_python_import_that_raises_is_undone_and_retried(tmp_path):
    kind = fresh_kind("pylazyfail")
    module = fresh("tilec_test_lazyfail")
    marker = tmp_path / "attempts.txt"
    write_module(
        tmp_path,
        module,
        f"""
        import pathlib
        from tilec.backend import host_codegen as hc
        marker = pathlib.Path({str(marker)!r})
        attempts = int(marker.read_text()) + 1 if marker.exists() else 1
        marker.write_text(str(attempts))
        hc.register_host_codegen("{kind}", hc.HostCodegen("half", build=lambda m, h: None))
        if attempts == 1:
            raise RuntimeError("first import fails")
        """,
    )
    hc.register_lazy_host_codegen(kind, module)
    with pytest.raises(ValueError, match="RuntimeError: first import fails"):
        hc.resolve_host_codegen(Target(kind))
    # Undone: the codegen the failed import registered is gone again.
    assert dict(_core.list_host_codegens()).get(kind, []) == []
    assert hc.resolve_host_codegen(Target(kind)).name == "half"
    assert marker.read_text() == "2"


def test_lazy_hooks_by_python_import_path(tmp_path):
    kind = fresh_kind("pylazyhook")
    module = fresh("tilec_test_lazyhook")
    write_module(
        tmp_path,
        module,
        f"""
        from tilec.backend import host_codegen as hc
        hc.register_host_codegen_hook(
            "{kind}", hc.HostCodegenHook("lazy_hook", apply=lambda mod, h, t: mod.with_attr("lazy_hook", 1)))
        """,
    )
    hc.register_lazy_host_codegen_hooks(kind, module)
    mod = _core.parse_kernel_source(VECTOR_ADD)
    assert hc.apply_host_codegen_hooks(mod, Target("c"), Target(kind)).attrs["lazy_hook"] == 1


def test_lazy_import_path_that_is_neither_python_nor_a_plugin_says_where_it_looked():
    kind = fresh_kind("pylazymissing")
    hc.register_lazy_host_codegen(kind, "tilec_plugin_does_not_exist")
    with pytest.raises(ValueError, match="tilec_plugin_does_not_exist"):
        hc.resolve_host_codegen(Target(kind))


def test_lazy_registration_by_plugin_import_path(monkeypatch):
    from conftest import REPO

    plugins = REPO / "build" / "tests" / "backend" / "plugins"
    if not (plugins / "libtilec_test_good_plugin.so").exists():
        pytest.skip(f"the test plugins are built with the C++ tests into {plugins}; not found")
    monkeypatch.setenv("TILEC_PLUGIN_PATH", str(plugins))
    kind = fresh_kind("pylazyplugin")
    # The plugin is loaded on the first use of the kind (here: applying its hooks) and
    # registers, among others, the host codegen of its own kind `plugin_host`.
    hc.register_lazy_host_codegen_hooks(kind, "tilec_test_good_plugin")
    mod = _core.parse_kernel_source(VECTOR_ADD)
    hc.apply_host_codegen_hooks(mod, Target("c"), Target(kind))
    assert _core.is_module_loaded("tilec_test_good_plugin")
    assert hc.resolve_host_codegen(Target("plugin_host")).name == "plugin_host_codegen"
