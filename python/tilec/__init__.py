"""tilec from Python: the backend layer of the seeds (tilec.backend.module,
tilec.backend.host_codegen), targets (tilec.target), kernels parsed into IRModules
with tilec.parse (what the backend layer's stages take), and kernels compiled with
tilec.compile and called on NumPy arrays or any object with __dlpack__.

Everything runs in tilec's C++ libraries (the extension module tilec._core); this
package arranges their names as the seeds do and reads kernels written in Python
for the C++ front end.
"""

from . import _core
from ._core import (
    BackendError,
    CodeArtifact,
    EngineError,
    IRModule,
    KernelError,
    KernelSourceError,
    PassError,
    TargetError,
    __version__,
)

# The built-in backends and TILEC_PLUGIN_PATH's plugins, as every tilec command has them.
_core.initialize()

from . import backend, language, target  # noqa: E402
from .kernel import JitKernel, Kernel, compile, jit, parse  # noqa: E402
from .autotune import TuneResult, autotune  # noqa: E402

__all__ = [
    "BackendError",
    "CodeArtifact",
    "EngineError",
    "IRModule",
    "JitKernel",
    "Kernel",
    "KernelError",
    "KernelSourceError",
    "PassError",
    "TargetError",
    "TuneResult",
    "__version__",
    "autotune",
    "backend",
    "compile",
    "jit",
    "language",
    "parse",
    "target",
]
