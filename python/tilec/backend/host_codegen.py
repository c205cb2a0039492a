"""tilec.backend.host_codegen: seed page 2 (tilelang.backend.host_codegen) over tilec's C++ registry.

HostCodegen(name, build, supports_target=None) and HostCodegenHook(name, apply,
supports_target=None) take Python callables (build(mod, target_host) -> CodeArtifact,
apply(mod, target_host, target) -> IRModule) or come from the registry. Registration
goes by identity, as the reference's objects do: the same name with the very same
callable objects again is a no-op returning the registered entry (register_host_codegen(k,
c) is c), any other callable (another closure of one factory included) is refused
unless override=True, which replaces the entry. Lazy
registration takes a Python import path (imported once, on first use of the kind,
however many threads ask; an import that raises leaves nothing registered and is tried
again next time) as well as a built-in module or a plugin on TILEC_PLUGIN_PATH.
"""

from collections.abc import Callable

from .._core import (
    HostCodegen,
    HostCodegenHook,
    allowed_host_codegens_for_target,
    apply_host_codegen_hooks,
    global_func_host_codegen,
    register_host_codegen,
    register_host_codegen_hook,
    register_lazy_host_codegen,
    register_lazy_host_codegen_hooks,
    resolve_host_codegen,
)
from .._core import IRModule, CodeArtifact
from ..target import Target

HostCodegenFunc = Callable[[IRModule, Target], CodeArtifact]
HostCodegenHookFunc = Callable[[IRModule, Target, "Target | None"], IRModule]
TargetPredicate = Callable[[Target], bool]

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
