"""tilec.backend.module: seed page 1 (tilelang.backend.module) over tilec's C++ layer.

BackendModule is an immutable manifest validated when it is made (the seed's
__post_init__); its components can be taken from registered backends (pipelines,
device codegens, execution backends) or built from Python callables (host codegens,
hooks, predicates, callbacks), which run where the C++ layer calls them. An exception
one raises fails that operation as a C++ error would and leaves the registries as
they were. BackendContext is immutable. Errors are ValueErrors (tilec.BackendError,
tilec.TargetError) carrying the C++ message.

Identity is the object, as in the reference: register_backend(b) returns b itself (or
the registered manifest b equals: the same names and the very same component objects;
another closure is a different declaration), and get_backend, list_backends and a
context's module hand out that same object while it is registered.
"""

from collections.abc import Callable

from .. import _core
from .._core import BackendContext, BackendModule, create_backend_context, get_backend, register_backend
from ..target import Target

BackendCallback = Callable[..., object]
TargetPredicate = Callable[[Target], bool]


def list_backends() -> dict:
    """A copy of the registered backend modules: name -> BackendModule, in registration order."""
    return _core.list_backends()


__all__ = [
    "BackendCallback",
    "BackendContext",
    "BackendModule",
    "TargetPredicate",
    "create_backend_context",
    "get_backend",
    "list_backends",
    "register_backend",
]
