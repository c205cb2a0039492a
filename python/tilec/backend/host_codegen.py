"""tilec.backend.host_codegen: seed page 2 (tilelang.backend.host_codegen) over tilec's C++ registry.

HostCodegen(name, build, supports_target=None) and HostCodegenHook(name, apply,
supports_target=None) take Python callables (build(mod, target_host) -> CodeArtifact,
apply(mod, target_host, target) -> IRModule) or come from the registry. Lazy
registration takes a Python import path (imported once, on first use of the kind,
however many threads ask; an import that raises leaves nothing registered and is tried
again next time) as well as a built-in module or a plugin on TILEC_PLUGIN_PATH.
"""

from collections.abc import Callable

from .. import _core
from .._core import (
    HostCodegen,
    HostCodegenHook,
    allowed_host_codegens_for_target,
    apply_host_codegen_hooks,
    global_func_host_codegen,
    register_lazy_host_codegen,
    register_lazy_host_codegen_hooks,
    resolve_host_codegen,
)
from .._core import IRModule, CodeArtifact
from ..target import Target

HostCodegenFunc = Callable[[IRModule, Target], CodeArtifact]
HostCodegenHookFunc = Callable[[IRModule, Target, "Target | None"], IRModule]
TargetPredicate = Callable[[Target], bool]

# The C++ registry tells callables apart by their C++ type, and every Python callable
# is held by one wrapper type (in one of two flavors). These remember which Python
# objects were registered under each name, and in which flavor, so a registration of
# the same objects uses the same flavor (a no-op, as the same C++ function is) and one
# of different objects the other flavor (refused unless override, as a different C++
# function is). An entry the registry no longer holds (its lazy import failed and was
# undone) is forgotten.
_registered: dict = {}


def _listed(listing, kind, name):
    return name in dict(listing()).get(kind, [])


def _register(register, listing, kind, entry, override):
    key = (register.__name__, kind, entry.name)
    callables = entry._python_callables()
    known = _registered.get(key)
    if known is not None and not _listed(listing, kind, entry.name):
        known = None
    if known is not None and entry._python_flavor() >= 0:
        known_callables, known_flavor = known
        same = all(a is b for a, b in zip(known_callables, callables))
        entry = entry._with_python_flavor(known_flavor if same else 1 - known_flavor)
    registered = register(kind, entry, override=override)
    if entry._python_flavor() >= 0:
        _registered[key] = (callables, entry._python_flavor())
    return registered


def register_host_codegen(target_host_kind: str, codegen: HostCodegen, *, override: bool = False) -> HostCodegen:
    """Register a host codegen entry for a host target kind (the same entry again is a no-op)."""
    return _register(_core.register_host_codegen, _core.list_host_codegens, target_host_kind, codegen, override)


def register_host_codegen_hook(target_kind: str, hook: HostCodegenHook, *, override: bool = False) -> HostCodegenHook:
    """Register a device-backend hook applied to the host module before host codegen."""
    return _register(_core.register_host_codegen_hook, _core.list_host_codegen_hooks, target_kind, hook, override)


__all__ = [
    "HostCodegen",
    "HostCodegenFunc",
    "HostCodegenHook",
    "HostCodegenHookFunc",
    "TargetPredicate",
    "allowed_host_codegens_for_target",
    "apply_host_codegen_hooks",
    "global_func_host_codegen",
    "register_host_codegen",
    "register_host_codegen_hook",
    "register_lazy_host_codegen",
    "register_lazy_host_codegen_hooks",
    "resolve_host_codegen",
]
