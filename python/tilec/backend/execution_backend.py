"""tilec.backend.execution_backend: ExecutionBackendSpec, a target backend's declaration
of one shared execution backend (native, ...): name, is_available, supports_target,
enable_host_codegen, enable_device_compile."""

from .._core import ExecutionBackendSpec

__all__ = ["ExecutionBackendSpec"]
