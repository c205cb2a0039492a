"""tilec.backend: the seeds' backend layer (tilelang.backend.*), implemented in C++."""

from . import device_codegen, execution_backend, host_codegen, module, pass_pipeline
from .device_codegen import DeviceCodegen
from .execution_backend import ExecutionBackendSpec
from .host_codegen import (
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
from .module import (
    BackendContext,
    BackendModule,
    create_backend_context,
    get_backend,
    list_backends,
    register_backend,
)
from .pass_pipeline import Pass, PassPipeline

__all__ = [
    "BackendContext",
    "BackendModule",
    "DeviceCodegen",
    "ExecutionBackendSpec",
    "HostCodegen",
    "HostCodegenHook",
    "Pass",
    "PassPipeline",
    "allowed_host_codegens_for_target",
    "apply_host_codegen_hooks",
    "create_backend_context",
    "device_codegen",
    "execution_backend",
    "get_backend",
    "global_func_host_codegen",
    "host_codegen",
    "list_backends",
    "module",
    "pass_pipeline",
    "register_backend",
    "register_host_codegen",
    "register_host_codegen_hook",
    "register_lazy_host_codegen",
    "register_lazy_host_codegen_hooks",
    "resolve_host_codegen",
]
